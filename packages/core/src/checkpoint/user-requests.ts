import { findPolicyText, truncateWithoutClaims } from './authority-text.js';
import type { CheckpointCaps } from './caps.js';
import type { ConstraintRecord, TaskPointer } from './schema.js';
import { oneLine, splitSentences } from './text.js';

/**
 * Most earlier user requests a checkpoint keeps besides the latest: the first one (it usually
 * states the goal and its conditions) and the most recent others.
 */
export const MAX_EARLIER_REQUESTS = 16;

const WEEKDAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun)';
const DEADLINE = `deadline|due(?: date| by| on| before)|no later than|by (?:${WEEKDAY}|tomorrow|tonight|noon|eod|end of (?:the )?(?:day|week|month|sprint))|before (?:${WEEKDAY}|tomorrow|the release|release)`;

/**
 * Wording by which a user states a condition on the work rather than a step of it. Matched within
 * one clause (clauses never hold a `;`), so a file path's dots never end a match early.
 */
const CONSTRAINT_MARKERS = new RegExp(
  String.raw`\b(?:do not|don't|dont|never|always|must not|mustn't|must|should not|shouldn't|only|without|avoid|instead of|no new|no more than|at most|at least|make sure|ensure|preserve|prefer(?:s|red|ably)?|stick (?:to|with)|` +
    String.raw`keep\b[^;]*?\b(?:unchanged|as it is|as is|intact|green|passing|the same|stable|compatible)|leave\b[^;]*?\b(?:alone|unchanged|as it is|as is|untouched)|` +
    String.raw`(?:use|write|choose|pick)\b[^;]*?\b(?:not|rather than)|,\s*not|${DEADLINE})\b`,
  'i',
);

/** A conjunction that opens another condition ("… and keep the API unchanged"): a clause boundary. */
const CONDITION_CONJUNCTION = new RegExp(
  String.raw`,?\s+(?:and(?: also)?|but|plus|or)\s+(?=(?:do not|don't|never|always|must|should not|keep|leave|use|prefer|avoid|only|make sure|ensure|preserve|stick|the deadline|it is due|it's due)\b)`,
  'i',
);

/** Clause boundaries inside a sentence: semicolons, dashes, and conjunctions that open a condition. */
const CLAUSE_BOUNDARY = new RegExp(String.raw`;\s*|\s+[—–]\s+|${CONDITION_CONJUNCTION.source}`, 'i');

/**
 * The user requests before the latest one, oldest first and bounded (the first, then the most
 * recent), each redacted, on one line and cut to the longest line a view shows.
 */
export function earlierRequests(
  userMessages: ReadonlyMap<number, string>,
  latestIndex: number | null,
  caps: CheckpointCaps,
  redact: (text: string) => string,
): TaskPointer[] {
  const indexes = [...userMessages.keys()].filter((index) => index !== latestIndex).sort((left, right) => left - right);
  const kept =
    indexes.length <= MAX_EARLIER_REQUESTS
      ? indexes
      : [indexes[0] as number, ...indexes.slice(indexes.length - (MAX_EARLIER_REQUESTS - 1))];
  const limit = Math.min(caps.maxTaskChars, caps.maxLineChars);
  return kept.map((index) => ({
    text: requestLine(oneLine(redact(userMessages.get(index) ?? '')), limit),
    evidence: { source: 'user', messageIndex: index },
  }));
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

/** The clauses of one sentence, in order: split at semicolons, dashes and conjunctions that open a condition. */
export function sentenceClauses(sentence: string): string[] {
  return sentence
    .split(CLAUSE_BOUNDARY)
    .map((clause) =>
      oneLine(clause)
        .replace(/[.!]+$/, '')
        .trim(),
    )
    .filter((clause) => clause.length > 0);
}

/**
 * The parts of a user's message that state a constraint ("do not change the test file", "use
 * only CommonJS, no new dependencies"), clause by clause. A sentence states a constraint from its
 * first clause with constraint wording on: that clause and every clause after it in the sentence
 * are kept ("do not touch package.json; the deadline is Friday" gives both), the steps before it
 * are not ("Fix the test; do not change the test file" gives the second clause only).
 * Deterministic, no model: what is not worded as a condition is not taken.
 */
export function statedConstraints(text: string): string[] {
  const found: string[] = [];
  for (const sentence of splitSentences(text)) {
    const clauses = sentenceClauses(sentence);
    const first = clauses.findIndex((clause) => CONSTRAINT_MARKERS.test(clause));
    if (first === -1) continue;
    for (const clause of clauses.slice(first)) if (!found.includes(clause)) found.push(clause);
  }
  return found;
}

/**
 * Every constraint the user stated in their requests, as memory constraints with the request as
 * evidence, oldest first, redacted (each request once, before it is split) and repeats included:
 * the caller keeps each once by its own rule. A clause that claims an approval or sets policy is
 * never taken.
 */
export function statedConstraintRecords(
  userMessages: ReadonlyMap<number, string>,
  caps: CheckpointCaps,
  redact: (text: string) => string,
): ConstraintRecord[] {
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
export function userConstraints(
  userMessages: ReadonlyMap<number, string>,
  caps: CheckpointCaps,
  redact: (text: string) => string,
): ConstraintRecord[] {
  const seen = new Set<string>();
  return statedConstraintRecords(userMessages, caps, redact).filter((record) => {
    if (seen.has(record.text)) return false;
    seen.add(record.text);
    return true;
  });
}
