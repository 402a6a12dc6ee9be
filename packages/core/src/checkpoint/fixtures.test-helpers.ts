import { sha256Hex } from '../hashing.js';
import type { JsonObject, JsonValue } from '../json.js';
import type { Message, ToolResultOutput } from '../messages.js';
import type { CheckpointCaps } from './caps.js';
import { CHECKPOINT_CAPS } from './caps.js';
import type { CheckpointTranscriptEntry } from './host-metadata.js';
import type { StructuredSummary } from './schema.js';

/*
 * Small builders for checkpoint tests: transcripts are written as they would be recorded, with
 * host metadata on tool results exactly as @forge/tools writes it.
 */

export interface Call {
  readonly id: string;
  readonly tool: string;
  readonly input: JsonValue;
}

export function user(content: string, runId?: string): CheckpointTranscriptEntry {
  return { message: { role: 'user', content }, ...(runId === undefined ? {} : { runId }) };
}

export function assistant(text: string, calls: readonly Call[] = [], runId?: string): CheckpointTranscriptEntry {
  const content: Extract<Message, { role: 'assistant' }>['content'] = [];
  if (text.length > 0) content.push({ type: 'text', text });
  for (const call of calls)
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.tool, input: call.input });
  return { message: { role: 'assistant', content }, ...(runId === undefined ? {} : { runId }) };
}

export interface Result {
  readonly id: string;
  readonly tool: string;
  readonly output: ToolResultOutput;
  readonly metadata?: JsonObject;
}

export function results(items: readonly Result[], runId?: string): CheckpointTranscriptEntry {
  return {
    message: {
      role: 'tool',
      content: items.map((item) => ({
        type: 'tool-result',
        toolCallId: item.id,
        toolName: item.tool,
        output: item.output,
        ...(item.metadata === undefined ? {} : { metadata: item.metadata }),
      })),
    },
    ...(runId === undefined ? {} : { runId }),
  };
}

export function text(value: string): ToolResultOutput {
  return { type: 'text', value };
}

export function errorText(value: string): ToolResultOutput {
  return { type: 'error-text', value };
}

export const hashOf = (content: string): string => sha256Hex(content);

/** A read_file call and its result, as two entries. */
export function readFile(id: string, path: string, content: string, runId?: string): CheckpointTranscriptEntry[] {
  return [
    assistant('', [{ id, tool: 'read_file', input: { path } }], runId),
    results(
      [
        {
          id,
          tool: 'read_file',
          output: text(content),
          metadata: { path, sha256: hashOf(content), bytes: content.length, complete: true },
        },
      ],
      runId,
    ),
  ];
}

/** An edit_file call and its result. */
export function editFile(
  id: string,
  path: string,
  before: string | null,
  after: string,
  runId?: string,
): CheckpointTranscriptEntry[] {
  return [
    assistant('', [{ id, tool: 'edit_file', input: { path, oldText: before ?? '', newText: after } }], runId),
    results(
      [
        {
          id,
          tool: 'edit_file',
          output: text(`Edited ${path}.`),
          metadata: { path, sha256Before: before === null ? null : hashOf(before), sha256After: hashOf(after) },
        },
      ],
      runId,
    ),
  ];
}

/** A run_command call and its result. */
export function runCommand(
  id: string,
  argv: readonly string[],
  exitCode: number | null,
  output: string,
  runId?: string,
): CheckpointTranscriptEntry[] {
  return [
    assistant('', [{ id, tool: 'run_command', input: { argv: [...argv] } }], runId),
    results(
      [
        {
          id,
          tool: 'run_command',
          output: text(output),
          metadata: { argv: [...argv], exitCode, signal: null, timedOut: false, durationMs: 1200, truncated: false },
        },
      ],
      runId,
    ),
  ];
}

/** A checkpoint_note call and the result the tool gave. */
export function note(id: string, input: JsonValue, accepted = true, runId?: string): CheckpointTranscriptEntry[] {
  return [
    assistant('', [{ id, tool: 'checkpoint_note', input }], runId),
    results(
      [
        {
          id,
          tool: 'checkpoint_note',
          output: accepted ? text('Recorded.') : errorText('checkpoint_note rejected: …'),
        },
      ],
      runId,
    ),
  ];
}

/** Redaction stand-in: the real redactor is tested on its own; here a fixed token is enough. */
export const redactSecrets = (value: string): string =>
  value.replaceAll('sk-test-SECRET-0123456789abcdef', '[REDACTED:secret]');

/** Caps small enough that every list overflows in a short fixture. */
export const TIGHT_CAPS: CheckpointCaps = Object.freeze({
  ...CHECKPOINT_CAPS,
  maxFacts: 2,
  maxDecisions: 1,
  maxPlanSteps: 2,
  maxRejectedApproaches: 1,
  maxConstraints: 1,
  maxArtifacts: 4,
  maxRecentArtifacts: 2,
  maxCommands: 2,
  maxChangedFiles: 1,
  maxFailures: 1,
  maxValueChars: 40,
  maxTaskChars: 80,
  maxLineChars: 128,
  maxDigestCharsPerMessage: 60,
  minDigestCharsPerMessage: 48,
  maxDigestChars: 240,
});

/** A compactor's structured summary that names nothing; tests override the fields they need. */
export function emptyStructuredSummary(overrides: Partial<StructuredSummary> = {}): StructuredSummary {
  return {
    activeGoal: 'g',
    phase: 'p',
    completedWork: [],
    decisions: [],
    rejectedApproaches: [],
    changedFiles: [],
    commandsAndResults: [],
    references: [],
    constraints: [],
    blockers: [],
    nextAction: null,
    ...overrides,
  };
}
