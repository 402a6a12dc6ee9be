import type { JsonValue } from '../json.js';
import type { Message, ToolResultPart } from '../messages.js';
import { canonicalJsonStringify } from '../hashing.js';
import { truncateWithoutClaims } from './authority-text.js';
import type { CheckpointCaps } from './caps.js';
import {
  EDIT_FILE_TOOL,
  READ_FILE_TOOL,
  RUN_COMMAND_TOOL,
  editFileMetadata,
  formatCommand,
  readFileMetadata,
  runCommandMetadata,
  type CheckpointTranscriptEntry,
  CHECKPOINT_NOTE_TOOL,
} from './host-metadata.js';
import type { CheckpointDigest, DigestEntry } from './schema.js';
import { oneLine, shortHash, truncateText } from './text.js';
import { describeToolCall, toolOutputExcerpt } from './transcript-observer.js';
import { outcomeLabel, resultOutcome, worstOutcome, type StepOutcome } from './step-outcome.js';
import { looksLikeVerification } from './verification-text.js';

/** Characters of a message read before cutting; a line never shows more than this anyway. */
const READ_AHEAD_FACTOR = 8;

/**
 * `count` indexes spread evenly over `[0, total)`, first and last included, ascending.
 */
export function evenlySpaced(total: number, count: number): number[] {
  if (count <= 0 || total <= 0) return [];
  if (count >= total) return Array.from({ length: total }, (_, index) => index);
  if (count === 1) return [total - 1];
  return Array.from({ length: count }, (_, slot) => Math.floor((slot * (total - 1)) / (count - 1)));
}

/** Which summarized messages get a digest line, and how many characters each line may use. */
export function digestLayout(
  roles: readonly Message['role'][],
  caps: CheckpointCaps,
): { indexes: number[]; lineChars: number } {
  const total = roles.length;
  if (total === 0 || caps.maxDigestChars < caps.minDigestCharsPerMessage) return { indexes: [], lineChars: 0 };
  const fair = Math.floor(caps.maxDigestChars / total);
  if (fair >= caps.minDigestCharsPerMessage) {
    return { indexes: roles.map((_, index) => index), lineChars: Math.min(fair, caps.maxDigestCharsPerMessage) };
  }
  const slots = Math.floor(caps.maxDigestChars / caps.minDigestCharsPerMessage);
  const users: number[] = [];
  const others: number[] = [];
  roles.forEach((role, index) => (role === 'user' ? users : others).push(index));
  const userSlots = Math.min(users.length, Math.ceil(slots / 2));
  const otherSlots = Math.min(others.length, slots - userSlots);
  const chosenUsers = evenlySpaced(users.length, userSlots + Math.max(0, slots - userSlots - otherSlots)).map(
    (slot) => users[slot] as number,
  );
  const chosenOthers = evenlySpaced(others.length, otherSlots).map((slot) => others[slot] as number);
  return {
    indexes: [...chosenUsers, ...chosenOthers].sort((left, right) => left - right),
    lineChars: caps.minDigestCharsPerMessage,
  };
}

interface Excerpt {
  readonly outcome: StepOutcome | null;
  readonly body: string;
}

function resultExcerpt(result: ToolResultPart, readAhead: number): Excerpt {
  const status = result.output.type === 'error-text' ? 'error' : 'ok';
  const recorded = resultOutcome(result);
  if (result.toolName === RUN_COMMAND_TOOL) {
    const metadata = runCommandMetadata(result.metadata);
    if (metadata !== null) {
      const output = result.output.type === 'json' ? canonicalJsonStringify(result.output.value) : result.output.value;
      const exited =
        metadata.timedOut === true ? 'timed out' : `exit ${metadata.exitCode ?? metadata.signal ?? 'unknown'}`;
      return {
        outcome: recorded,
        body: `${RUN_COMMAND_TOOL} \`${formatCommand(metadata.argv)}\` ${exited}: ${oneLine(output.slice(0, readAhead))}`,
      };
    }
  }
  if (status === 'ok' && result.toolName === READ_FILE_TOOL) {
    const metadata = readFileMetadata(result.metadata);
    if (metadata !== null)
      return { outcome: null, body: `${READ_FILE_TOOL} ${metadata.path} sha256=${shortHash(metadata.sha256)}` };
  }
  if (status === 'ok' && result.toolName === EDIT_FILE_TOOL) {
    const metadata = editFileMetadata(result.metadata);
    if (metadata !== null) {
      return {
        outcome: null,
        body: `${EDIT_FILE_TOOL} ${metadata.path} sha256 ${shortHash(metadata.sha256Before)} → ${shortHash(metadata.sha256After)}`,
      };
    }
  }
  const text = toolOutputExcerpt({ ...result, output: truncatedOutput(result, readAhead) });
  return {
    outcome: recorded ?? (looksLikeVerification(text) ? 'report' : null),
    body: `${result.toolName} ${status}: ${text}`,
  };
}

function truncatedOutput(result: ToolResultPart, readAhead: number): ToolResultPart['output'] {
  return result.output.type === 'json'
    ? { type: 'text', value: canonicalJsonStringify(result.output.value).slice(0, readAhead) }
    : { ...result.output, value: result.output.value.slice(0, readAhead) };
}

function describeCallForDigest(toolName: string, input: JsonValue): string {
  if (toolName !== CHECKPOINT_NOTE_TOOL) return describeToolCall(toolName, input);
  const kind =
    input !== null && typeof input === 'object' && !Array.isArray(input)
      ? (input as { readonly kind?: JsonValue }).kind
      : undefined;
  return `${CHECKPOINT_NOTE_TOOL} ${typeof kind === 'string' ? kind : '(invalid)'}`;
}

function messageExcerpt(message: Message, readAhead: number): Excerpt {
  if (message.role === 'user') return { outcome: null, body: oneLine(message.content.slice(0, readAhead)) };
  if (message.role === 'assistant') {
    const pieces: string[] = [];
    let visible = '';
    for (const part of message.content) {
      if (part.type === 'text') {
        visible += part.text;
        pieces.push(oneLine(part.text.slice(0, readAhead)));
      } else if (part.type === 'tool-call') {
        pieces.push(`→ ${describeCallForDigest(part.toolName, part.input)}`);
      }
    }
    const body = pieces.filter((piece) => piece.length > 0).join(' ');
    // Prose is never a result: what it says about tests makes the line historical, never FAILED or passed.
    return {
      outcome: looksLikeVerification(visible) ? 'report' : null,
      body: body.length > 0 ? body : '(no visible text)',
    };
  }
  const excerpts = message.content.map((part) => resultExcerpt(part, readAhead));
  return {
    outcome: worstOutcome(excerpts.map((excerpt) => excerpt.outcome)),
    body: excerpts.map((excerpt) => excerpt.body).join(' | '),
  };
}

/**
 * The extractive digest of `entries[0, end)`, leaving out the messages in `quoted` (the checkpoint
 * shows them in full elsewhere). Every message gets an equal share of
 * `maxDigestChars`, at most `maxDigestCharsPerMessage`; when the share would fall below
 * `minDigestCharsPerMessage`, messages are sampled evenly instead (half the lines for user
 * messages). Each line is redacted, loses approval-like claims, and starts with a historical label:
 * `[FAILED, …]` only when the message's own result failed (error result, non-zero exit, timeout,
 * refused call), `[exit 0, …]` for a command that exited 0, and a bare `[historical, …]` for prose
 * or output that talks about tests or builds (words are never a result). No clock, no
 * randomness: the same messages and caps give the same digest.
 */
export function buildDigest(
  entries: readonly CheckpointTranscriptEntry[],
  end: number,
  caps: CheckpointCaps,
  redact: (text: string) => string,
  quoted: ReadonlySet<number> = new Set(),
): CheckpointDigest {
  const summarized = Math.max(0, Math.min(end, entries.length));
  // Messages the checkpoint quotes in full elsewhere (the user's requests) get no digest line of their own.
  const candidates = Array.from({ length: summarized }, (_, index) => index).filter((index) => !quoted.has(index));
  const roles = candidates.map((index) => (entries[index] as CheckpointTranscriptEntry).message.role);
  const layout = digestLayout(roles, caps);
  const { lineChars } = layout;
  const indexes = layout.indexes.map((slot) => candidates[slot] as number);
  const readAhead = Math.max(lineChars * READ_AHEAD_FACTOR, 256);
  const digestEntries: DigestEntry[] = indexes.map((seq) => {
    const entry = entries[seq] as CheckpointTranscriptEntry;
    const excerpt = messageExcerpt(entry.message, readAhead);
    const body = oneLine(redact(excerpt.body));
    if (excerpt.outcome === null)
      return { seq, role: entry.message.role, text: truncateWithoutClaims(body, lineChars) };
    const label = outcomeLabel(excerpt.outcome, entry.runId ?? null);
    const room = lineChars - label.length - 1;
    const text = room < 2 ? truncateText(label, lineChars) : `${label} ${truncateWithoutClaims(body, room)}`.trimEnd();
    return { seq, role: entry.message.role, text };
  });
  return { summarizedMessages: summarized, entries: digestEntries };
}
