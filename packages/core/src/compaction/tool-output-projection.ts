import {
  EDIT_FILE_TOOL,
  READ_FILE_TOOL,
  RUN_COMMAND_TOOL,
  editFileMetadata,
  readFileMetadata,
  runCommandMetadata,
} from '../checkpoint/host-metadata.js';
import { sha256Hex } from '../hashing.js';
import type { Message, ToolResultOutput, ToolResultPart } from '../messages.js';
import { splitIntoGroups } from '../view/groups.js';

/** Bounds of a projected tool output. */
export interface ToolOutputProjectionOptions {
  /** Outputs of at most this many characters are kept as they are (default 2,000). */
  readonly minOutputChars?: number;
  /** Characters of the original output kept as an excerpt (default 400). */
  readonly excerptChars?: number;
}

const DEFAULT_MIN_OUTPUT_CHARS = 2_000;
const DEFAULT_EXCERPT_CHARS = 400;

function outputText(output: ToolResultOutput): string {
  return output.type === 'json' ? JSON.stringify(output.value) : output.value;
}

/**
 * The bounded form of one tool output: tool name, success, size and content hash of the
 * original, a short excerpt and an explicit truncation marker saying how to get the rest. A
 * failed call stays `error-text`, so success is never changed by projecting.
 */
export function projectToolOutput(part: ToolResultPart, options: ToolOutputProjectionOptions = {}): ToolResultPart {
  const excerptChars = options.excerptChars ?? DEFAULT_EXCERPT_CHARS;
  const known = projectedForms.get(part);
  const found = known?.get(excerptChars);
  if (found !== undefined) return found;
  const projected = projectedForm(part, excerptChars);
  if (known === undefined) projectedForms.set(part, new Map([[excerptChars, projected]]));
  else known.set(excerptChars, projected);
  return projected;
}

/** Projected forms already made, by original part and excerpt length: a part never changes, and hashing a large output again on every turn of a long session adds up. */
const projectedForms = new WeakMap<ToolResultPart, Map<number, ToolResultPart>>();

function projectedForm(part: ToolResultPart, excerptChars: number): ToolResultPart {
  const text = outputText(part.output);
  const success = part.output.type === 'error-text' ? 'failed' : 'succeeded';
  const header =
    `[tool output projected: ${part.toolName} ${success}; ${text.length.toLocaleString('en-US')} characters, sha256 ${sha256Hex(text).slice(0, 16)}; ` +
    `the first ${Math.min(excerptChars, text.length).toLocaleString('en-US')} follow]`;
  const marker = `[… ${Math.max(0, text.length - excerptChars).toLocaleString('en-US')} characters left out to save context; call the tool again (a narrower read or search) if you need them]`;
  const value = `${header}\n${text.slice(0, excerptChars)}\n${marker}`;
  return { ...part, output: { type: part.output.type === 'error-text' ? 'error-text' : 'text', value } };
}

/** Why an output may go before any other: what the host knows replaced it later in the view. */
export type SupersededBy = 'read' | 'edit' | 'command';

/** A tool output that may be projected, with what the host knows of it. */
export interface ProjectionCandidate {
  readonly toolCallId: string;
  /** Index of its tool message in the messages scanned. */
  readonly messageIndex: number;
  /**
   * What it shows: `file:<path>` for a read, `command:<argv>` for a command, else the call
   * itself. Outputs of one subject count once when the newest are protected.
   */
  readonly subject: string;
  /**
   * Set when a later output in the view replaced it: a read of a file that a later read returned
   * with another hash or whole, or that a later edit changed (`read`, `edit`); a command run
   * again with the same argv (`command`).
   */
  readonly supersededBy?: SupersededBy;
}

/** What later messages showed of one file, seen from the end of the view backwards. */
interface LaterFile {
  edited: boolean;
  readWhole: boolean;
  readHashes: Set<string>;
}

function subjectOf(
  part: ToolResultPart,
):
  | { readonly kind: 'file'; readonly path: string; readonly sha256?: string; readonly whole?: boolean }
  | { readonly kind: 'command'; readonly key: string }
  | undefined {
  if (part.toolName === READ_FILE_TOOL) {
    const read = readFileMetadata(part.metadata);
    return read === null
      ? undefined
      : { kind: 'file', path: read.path, sha256: read.sha256, whole: part.metadata?.['complete'] === true };
  }
  if (part.toolName === EDIT_FILE_TOOL) {
    const edit = editFileMetadata(part.metadata);
    return edit === null ? undefined : { kind: 'file', path: edit.path };
  }
  if (part.toolName === RUN_COMMAND_TOOL) {
    const command = runCommandMetadata(part.metadata);
    return command === null ? undefined : { kind: 'command', key: JSON.stringify(command.argv) };
  }
  return undefined;
}

/**
 * Outputs that may be projected: results in complete groups before the last group of `messages`
 * (never the latest exchange, never a call still waiting for its result), longer than
 * `minOutputChars`, in transcript order, each with its subject and whether a later output in
 * `messages` (the last group included) superseded it; never an output whose call id the view
 * holds more than once. Content hashes come from the host's
 * metadata (read_file's sha256, edit_file's path, run_command's argv), never from the text.
 */
export function projectionCandidates(
  messages: readonly Message[],
  options: ToolOutputProjectionOptions = {},
): ProjectionCandidate[] {
  const minimum = options.minOutputChars ?? DEFAULT_MIN_OUTPUT_CHARS;
  const groups = splitIntoGroups(messages);
  const end = groups.at(-1)?.start ?? 0;
  const eligible = new Set<number>();
  for (const group of groups) {
    if (group.end > end || group.pendingToolCalls > 0) continue;
    for (let index = group.start; index < group.end; index += 1) eligible.add(index);
  }
  // Projection is keyed by call id: an id the view holds twice (a provider that reuses ids across runs) cannot be projected without touching the other.
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) (seen.has(part.toolCallId) ? repeated : seen).add(part.toolCallId);
  }
  const files = new Map<string, LaterFile>();
  const commands = new Set<string>();
  const found: ProjectionCandidate[] = [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role !== 'tool') continue;
    for (let position = message.content.length - 1; position >= 0; position -= 1) {
      const part = message.content[position] as ToolResultPart;
      const subject = subjectOf(part);
      let supersededBy: SupersededBy | undefined;
      let key = `call:${part.toolCallId}`;
      if (subject?.kind === 'file') {
        key = `file:${subject.path}`;
        const later = files.get(subject.path) ?? { edited: false, readWhole: false, readHashes: new Set<string>() };
        files.set(subject.path, later);
        if (subject.sha256 !== undefined) {
          if (later.edited) supersededBy = 'edit';
          else if (later.readWhole || [...later.readHashes].some((hash) => hash !== subject.sha256))
            supersededBy = 'read';
          later.readHashes.add(subject.sha256);
          if (subject.whole === true) later.readWhole = true;
        } else {
          later.edited = true;
        }
      } else if (subject?.kind === 'command') {
        key = `command:${subject.key}`;
        if (commands.has(subject.key)) supersededBy = 'command';
        commands.add(subject.key);
      }
      if (!eligible.has(index) || repeated.has(part.toolCallId) || outputText(part.output).length <= minimum) continue;
      found.push({
        toolCallId: part.toolCallId,
        messageIndex: index,
        subject: key,
        ...(supersededBy === undefined ? {} : { supersededBy }),
      });
    }
  }
  return found.reverse();
}

/**
 * `messages` with the outputs of the calls in `projected` replaced by their bounded form. The
 * input is not modified, message and call order are kept, and every call keeps its result, so
 * tool call ↔ result pairing is untouched. Messages without a projected output are returned as
 * the same objects, and a message projected the same way again as the same projected object.
 */
export function applyToolOutputProjection(
  messages: readonly Message[],
  projected: ReadonlySet<string>,
  options: ToolOutputProjectionOptions = {},
): Message[] {
  if (projected.size === 0) return [...messages];
  return messages.map((message) => {
    if (message.role !== 'tool' || !message.content.some((part) => projected.has(part.toolCallId))) return message;
    const key = `${options.excerptChars ?? DEFAULT_EXCERPT_CHARS}:${message.content.map((part) => (projected.has(part.toolCallId) ? '1' : '0')).join('')}`;
    const known = projectedMessages.get(message);
    const found = known?.get(key);
    if (found !== undefined) return found;
    const form: Message = {
      role: 'tool',
      content: message.content.map((part) =>
        projected.has(part.toolCallId) ? projectToolOutput(part, options) : part,
      ),
    };
    if (known === undefined) projectedMessages.set(message, new Map([[key, form]]));
    else known.set(key, form);
    return form;
  });
}

/**
 * Projected messages already made, by original message and which of its outputs are projected:
 * every step and every later run of a session sends the same objects, so the estimator counts
 * them by identity instead of hashing them again.
 */
const projectedMessages = new WeakMap<Message, Map<string, Message>>();
