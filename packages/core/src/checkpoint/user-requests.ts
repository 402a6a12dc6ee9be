import { findPolicyText, truncateWithoutClaims } from './authority-text.js';
import type { CheckpointCaps } from './caps.js';
import type { ConstraintRecord, TaskPointer } from './schema.js';
import { oneLine, splitSentences } from './text.js';

/**
 * Most earlier user requests a checkpoint keeps besides the latest: the first one (it usually
 * states the goal and its conditions) and the most recent others.
 */
export const MAX_EARLIER_REQUESTS = 16;

/** Wording by which a user states a condition on the work rather than a step of it. */
const CONSTRAINT_MARKERS =
  /\b(?:do not|don't|dont|never|always|must not|mustn't|must|should not|shouldn't|only|without|avoid|instead of|no new|no more than|at most|at least|keep\b[^.]*\b(?:unchanged|as it is|as is|intact|green|passing)|\w[^.]*,\s*not)\b/i;

/**
 * The user requests before the latest one, oldest first and bounded (the first, then the most
 * recent), each redacted, on one line and cut to the longest line a view shows.
 */
export function earlierRequests(userMessages: ReadonlyMap<number, string>, latestIndex: number | null, caps: CheckpointCaps, redact: (text: string) => string): TaskPointer[] {
  const indexes = [...userMessages.keys()].filter((index) => index !== latestIndex).sort((left, right) => left - right);
  const kept = indexes.length <= MAX_EARLIER_REQUESTS ? indexes : [indexes[0] as number, ...indexes.slice(indexes.length - (MAX_EARLIER_REQUESTS - 1))];
  const limit = Math.min(caps.maxTaskChars, caps.maxLineChars);
  return kept.map((index) => ({ text: requestLine(oneLine(redact(userMessages.get(index) ?? '')), limit), evidence: { source: 'user', messageIndex: index } }));
}

/**
 * A request within `limit` characters. One too long keeps its start and then the conditions it
 * states, so a cut never drops what the user asked not to do (the steps matter less later on).
 */
function requestLine(text: string, limit: number): string {
  if (text.length <= limit) return truncateWithoutClaims(text, limit);
  const conditions = statedConstraints(text).join('. ');
  const separator = ' … ';
  const room = limit - conditions.length - separator.length - 1;
  if (conditions.length === 0 || room < MIN_REQUEST_START_CHARS) return truncateWithoutClaims(text, limit);
  const start = truncateWithoutClaims(text, room).replace(/…$/, '').trimEnd();
  return truncateWithoutClaims(`${start}${separator}${conditions}.`, limit);
}

/** Fewest characters of a long request's start kept before the conditions it states. */
const MIN_REQUEST_START_CHARS = 60;

/**
 * The parts of a user's message that state a constraint ("do not change the test file", "use
 * only CommonJS, no new dependencies"): its sentences and semicolon-separated clauses with
 * constraint wording. Deterministic, no model: what is not worded as a condition is not taken.
 */
export function statedConstraints(text: string): string[] {
  const clauses = splitSentences(text).flatMap((sentence) => sentence.split(/;\s+|\s+—\s+/));
  const found: string[] = [];
  for (const clause of clauses) {
    const cleaned = oneLine(clause)
      .replace(/[.!]+$/, '')
      .trim();
    if (cleaned.length > 0 && CONSTRAINT_MARKERS.test(cleaned) && !found.includes(cleaned)) found.push(cleaned);
  }
  return found;
}

/**
 * Every constraint the user stated in their requests, as memory constraints with the request as
 * evidence, oldest first, redacted (each request once, before it is split) and repeats included:
 * the caller keeps each once by its own rule. A clause that claims an approval or sets policy is
 * never taken.
 */
export function statedConstraintRecords(userMessages: ReadonlyMap<number, string>, caps: CheckpointCaps, redact: (text: string) => string): ConstraintRecord[] {
  const records: ConstraintRecord[] = [];
  for (const index of [...userMessages.keys()].sort((left, right) => left - right)) {
    for (const clause of statedConstraints(redact(userMessages.get(index) ?? ''))) {
      const text = truncateWithoutClaims(clause, Math.min(caps.maxValueChars, caps.maxMemoryTextChars));
      if (text.length === 0 || findPolicyText(text, { allowImperatives: true }) !== null) continue;
      records.push({ text, evidence: { source: 'user', messageIndex: index }, seq: index });
    }
  }
  return records;
}

/**
 * Constraints the user stated in their requests ({@link statedConstraintRecords}), a text already
 * stated earlier kept once, with its first request as evidence.
 */
export function userConstraints(userMessages: ReadonlyMap<number, string>, caps: CheckpointCaps, redact: (text: string) => string): ConstraintRecord[] {
  const seen = new Set<string>();
  return statedConstraintRecords(userMessages, caps, redact).filter((record) => {
    if (seen.has(record.text)) return false;
    seen.add(record.text);
    return true;
  });
}
