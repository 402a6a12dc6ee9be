import { truncateWithoutClaims } from './authority-text.js';
import type { CheckpointCaps } from './caps.js';
import type { UserRequest } from './schema.js';
import { oneLine, splitSentences, truncateText } from './text.js';

/*
 * What a checkpoint keeps of the user's earlier requests. They are the user's own words, so they
 * are kept as written (redacted, approval claims removed) rather than summarized; when they do
 * not all fit, the sentences that read as standing instructions ("never…", "use pnpm…", "do not
 * touch…") outlast the rest. The rule is deterministic and needs no model.
 */

/** Words that mark a sentence as a standing instruction the agent must keep to. */
const STANDING = /\b(never|always|must|mustn't|do not|don't|does not|doesn't|only|avoid|keep|make sure|uses?|prefer|instead|rather than|without|not allowed|stays?|should|shouldn't|need to|required?|every|no new|forbidden)\b/i;

/** The sentences of `text` that read as standing instructions, in their order. */
export function standingSentences(text: string): string[] {
  return splitSentences(text)
    .map((sentence) => sentence.trim())
    .filter((sentence) => STANDING.test(sentence));
}

/** A request cut to `max` characters: whole when it fits, else its first sentence and its standing instructions. */
function fitRequest(text: string, max: number): string {
  if (text.length <= max) return text;
  const [first = '', ...rest] = splitSentences(text).map((sentence) => sentence.trim());
  const kept = [first, ...rest.filter((sentence) => STANDING.test(sentence))].join(' ');
  return truncateText(kept, max);
}

/**
 * The earlier requests a checkpoint keeps, oldest first, from `messages` (index → text, the
 * latest request excluded). Each is redacted, loses approval claims and is cut to
 * `maxUserRequestChars`. Within `maxUserRequests` and `maxUserRequestsChars`, the oldest requests
 * (after the first, which says what the session is for) are reduced to their standing
 * instructions first, then dropped.
 */
export function keepUserRequests(messages: ReadonlyMap<number, string>, caps: CheckpointCaps, redact: (text: string) => string): UserRequest[] {
  const requests: UserRequest[] = [...messages.entries()]
    .sort(([left], [right]) => left - right)
    .map(([messageIndex, text]) => ({ messageIndex, text: fitRequest(truncateWithoutClaims(oneLine(redact(text)), Number.MAX_SAFE_INTEGER), caps.maxUserRequestChars) }))
    .filter((request) => request.text.length > 0);
  const size = () => requests.reduce((total, request) => total + request.text.length, 0);
  for (let index = 1; index < requests.length && size() > caps.maxUserRequestsChars; index += 1) {
    const request = requests[index] as UserRequest;
    requests[index] = { ...request, text: standingSentences(request.text).join(' ') };
  }
  let kept = requests.filter((request) => request.text.length > 0);
  while (kept.length > 1 && (kept.length > caps.maxUserRequests || kept.reduce((total, request) => total + request.text.length, 0) > caps.maxUserRequestsChars)) {
    kept = [kept[0] as UserRequest, ...kept.slice(2)];
  }
  const [first] = kept;
  if (first !== undefined && (caps.maxUserRequests === 0 || first.text.length > caps.maxUserRequestsChars)) kept = kept.slice(1);
  return kept;
}
