import type { JsonValue } from '../json.js';
import type { ToolCallPart, ToolResultPart } from '../messages.js';
import { canonicalJsonStringify } from '../hashing.js';
import {
  CHECKPOINT_NOTE_TOOL,
  EDIT_FILE_TOOL,
  READ_FILE_TOOL,
  RUN_COMMAND_TOOL,
  commandUri,
  editFileMetadata,
  fileUri,
  formatCommand,
  metadataPath,
  readFileMetadata,
  runCommandMetadata,
  toolOutputUri,
  type CheckpointTranscriptEntry,
} from './host-metadata.js';
import type { ArtifactKind } from './schema.js';
import { oneLine, truncateText } from './text.js';

/** What the transcript says about one tool call so far. */
export interface ObservedToolCall {
  readonly toolName: string;
  readonly input: JsonValue;
  readonly seq: number;
  /** Index of the tool message holding the result; `null` while the call has none. */
  resultSeq: number | null;
  failed: boolean;
  /** The file path the host reported in the result's metadata. */
  path: string | null;
}

export interface ObservedArtifact {
  readonly kind: ArtifactKind;
  hash: string | null;
  lastSeenSeq: number;
  /** Position of the latest observation across the whole transcript; orders "most recent". */
  order: number;
}

/** A command as the host ran it; text not yet redacted. */
export interface ObservedCommand {
  readonly command: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly runId: string | null;
  readonly seq: number;
}

/** "Tried `what`; failed because `why`"; text not yet redacted. */
export interface ObservedFailure {
  readonly what: string;
  readonly why: string;
  readonly runId: string | null;
  readonly seq: number;
}

const FAILURE_LINE = /error|fail|assert|exception|panic|denied|not found|cannot|unable|abort|refus|reject/i;
/**
 * Longest text kept from one observation before redaction. Far above any value cap, so what a cut
 * here splits (half a secret) stays out of the shown part.
 */
const RAW_TEXT_LIMIT = 4000;

function firstLine(text: string): string {
  return truncateText(
    text
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line.length > 0) ?? '',
    RAW_TEXT_LIMIT,
  );
}

/**
 * Why a command failed, from its output: the first line that reads as an error, else the last
 * line (a long log ends with its conclusion, not with what came first).
 */
function failureLine(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return truncateText(lines.find((line) => FAILURE_LINE.test(line)) ?? lines.at(-1) ?? '', RAW_TEXT_LIMIT);
}

function stringField(input: JsonValue, name: string): string | null {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return null;
  const value = (input as { readonly [key: string]: JsonValue })[name];
  return typeof value === 'string' ? value : null;
}

/** A short description of a call: the tool and what it was pointed at. */
export function describeToolCall(toolName: string, input: JsonValue): string {
  const path = stringField(input, 'path');
  if (path !== null) return `${toolName} ${path}`;
  const argv =
    input !== null && typeof input === 'object' && !Array.isArray(input)
      ? (input as { readonly [key: string]: JsonValue })['argv']
      : undefined;
  if (Array.isArray(argv) && argv.every((arg) => typeof arg === 'string'))
    return `${toolName} ${formatCommand(argv as string[])}`;
  const command = stringField(input, 'command');
  if (command !== null) return `${toolName} ${command}`;
  return `${toolName} ${truncateText(canonicalJsonStringify(input), 200)}`;
}

function outputText(result: ToolResultPart): string {
  return result.output.type === 'json' ? canonicalJsonStringify(result.output.value) : result.output.value;
}

/**
 * Walks the transcript once, in order, and keeps what the host knows: user messages, tool calls
 * and whether they succeeded, artifacts with host-computed hashes, commands, changed files and
 * failures. It reads tool-result metadata and message roles only; text the model or a tool wrote
 * never sets a hash, a task or a command outcome.
 */
export class TranscriptObserver {
  readonly userMessages = new Map<number, string>();
  readonly toolCalls = new Map<string, ObservedToolCall>();
  readonly artifacts = new Map<string, ObservedArtifact>();
  readonly changedFiles = new Map<string, { hash: string | null; seq: number }>();
  readonly commands: ObservedCommand[] = [];
  readonly failures: ObservedFailure[] = [];
  latestUserIndex: number | null = null;
  /** Index the next observed message has; starts at `startSeq`. */
  length: number;
  private order = 0;

  constructor(startSeq = 0) {
    this.length = startSeq;
  }

  observe(entry: CheckpointTranscriptEntry): void {
    const seq = this.length;
    this.length += 1;
    const { message } = entry;
    const runId = entry.runId ?? null;
    if (message.role === 'user') {
      this.userMessages.set(seq, message.content);
      this.latestUserIndex = seq;
    } else if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') this.observeCall(part, seq);
    } else {
      for (const part of message.content) this.observeResult(part, seq, runId);
    }
  }

  private observeCall(part: ToolCallPart, seq: number): void {
    this.toolCalls.set(part.toolCallId, {
      toolName: part.toolName,
      input: part.input,
      seq,
      resultSeq: null,
      failed: false,
      path: null,
    });
  }

  private see(uri: string, kind: ArtifactKind, hash: string | null, seq: number): void {
    this.order += 1;
    const known = this.artifacts.get(uri);
    if (known === undefined) this.artifacts.set(uri, { kind, hash, lastSeenSeq: seq, order: this.order });
    else Object.assign(known, { hash, lastSeenSeq: seq, order: this.order });
  }

  private observeResult(result: ToolResultPart, seq: number, runId: string | null): void {
    const call = this.toolCalls.get(result.toolCallId);
    const failed = result.output.type === 'error-text';
    if (call !== undefined) {
      call.resultSeq = seq;
      call.failed = failed;
      call.path = metadataPath(result.metadata);
    }

    if (result.toolName === RUN_COMMAND_TOOL) {
      const metadata = runCommandMetadata(result.metadata);
      if (metadata !== null) {
        const command = formatCommand(metadata.argv);
        const signal = metadata.signal ?? null;
        const timedOut = metadata.timedOut ?? false;
        this.commands.push({ command, exitCode: metadata.exitCode, signal, timedOut, runId, seq });
        this.see(commandUri(command), 'command', null, seq);
        const text = outputText(result);
        let why: string | null = null;
        if (timedOut) why = 'timed out';
        else if (signal !== null) why = `killed by ${signal}`;
        else if (metadata.exitCode !== 0) why = `exit code ${metadata.exitCode ?? 'unknown'}`;
        else if (failed) why = 'the tool reported an error';
        if (why !== null) {
          const detail = failureLine(text);
          this.failures.push({
            what: `\`${command}\``,
            why: detail.length > 0 ? `${why}: ${detail}` : why,
            runId,
            seq,
          });
        }
        return;
      }
    }
    if (failed) {
      if (result.toolName !== CHECKPOINT_NOTE_TOOL) {
        const what = call === undefined ? result.toolName : describeToolCall(call.toolName, call.input);
        this.failures.push({ what, why: firstLine(outputText(result)) || 'the tool reported an error', runId, seq });
      }
      return;
    }
    if (result.toolName === READ_FILE_TOOL) {
      const metadata = readFileMetadata(result.metadata);
      if (metadata !== null) this.see(fileUri(metadata.path), 'file', metadata.sha256, seq);
      return;
    }
    if (result.toolName === EDIT_FILE_TOOL) {
      const metadata = editFileMetadata(result.metadata);
      if (metadata !== null) {
        this.see(fileUri(metadata.path), 'file', metadata.sha256After, seq);
        this.changedFiles.set(metadata.path, { hash: metadata.sha256After, seq });
      }
      return;
    }
    if (result.toolName !== CHECKPOINT_NOTE_TOOL) {
      this.see(toolOutputUri(result.toolName, result.toolCallId), 'tool_output', null, seq);
    }
  }

  /** The current host-known hash of every artifact, by uri. */
  hashes(): Map<string, string | null> {
    const hashes = new Map<string, string | null>();
    for (const [uri, artifact] of this.artifacts) hashes.set(uri, artifact.hash);
    return hashes;
  }
}

/** One-line excerpt of a tool result's output, for digests. */
export function toolOutputExcerpt(result: ToolResultPart): string {
  return oneLine(outputText(result));
}
