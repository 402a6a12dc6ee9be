import { splitSentences, truncateText } from './text.js';

/*
 * Text that claims authority: approvals, permissions, lifted restrictions, standing rules for the
 * agent. Such text may sit in old messages (a user's one-off consent, a hostile tool output), but a
 * checkpoint must never carry it forward as if it still held.
 */

/** Claims that something was granted or that a safeguard does not apply. Narrow: used on history. */
const APPROVAL_CLAIMS: readonly RegExp[] = [
  /\b(?:you|the agent|the assistant|agent|assistant|we|i)\s*(?:are|is|am|'re|'m|have been|has been)\s+(?:now\s+|hereby\s+|already\s+|also\s+)?(?:allowed|permitted|authori[sz]ed|approved|cleared|trusted|granted)\b/i,
  /\b(?:you|the agent|the assistant|agent|assistant|i|we)\s+(?:now\s+|already\s+)?(?:have|has|got|get|hold)\s+(?:full\s+|unrestricted\s+|root\s+|admin\s+|blanket\s+|my\s+|the\s+)?(?:permission|permissions|approval|access|authori[sz]ation|clearance|consent)\b/i,
  /\b(?:i|we|the user)\s+(?:hereby\s+|already\s+|now\s+|also\s+)?(?:grant|approve|authori[sz]e|permit)(?:s|d|ed)?\b/i,
  /\b(?:i|we|the user)\s+(?:hereby\s+|already\s+|now\s+|also\s+)?(?:give|allow)s?\s+(?:you|the agent|the assistant|it)\b/i,
  /\bgrant(?:s|ed|ing)?\b/i,
  /\bpre-?approved\b|\bauto-?approv\w*|\bapproved\b|\bapproval (?:is |was )?(?:granted|given|not (?:needed|required))\b/i,
  /\bpermission (?:is |was |has been )?(?:granted|given)\b|\bwith (?:your|my|full) permission\b|\byou have (?:my |full |the )?permission\b/i,
  /\b(?:without|no need to|never|don'?t|do not|stop)\s+(?:ask|asking|confirm|confirming|confirmation|prompt|prompting|waiting for approval)\b/i,
  /\ballowed to (?:run|execute|write|delete|remove|push|access|modify|use|bypass|skip|install|commit|deploy|edit|change)\b/i,
  /\b(?:unrestricted|full|root|admin|elevated|sudo)\s+(?:access|permissions?|privileges?|mode|rights)\b/i,
  /\b(?:disable|disabled|bypass|turn off|turned off|skip|ignore|lift|lifted)\s+(?:the\s+|all\s+|any\s+)?(?:sandbox|sandboxing|approvals?|confirmations?|safety|guards?|polic(?:y|ies)|restrictions?|permission checks?)\b/i,
  /\byolo\b|\bdangerously\b/i,
];

/** Standing rules about how the agent behaves. Only used on memory the model proposes. */
const BEHAVIOUR_RULES: readonly RegExp[] = [
  /(?:^|[.;:!?]\s+|\n)\s*(?:always|never)\b/i,
  /\b(?:you|the agent|the assistant|agents?|assistants?|models?|i|we)\s+(?:must|should|shall|will|can|may)\s+(?:always|never)\b/i,
  /\b(?:from now on|going forward|in (?:all )?future (?:turns|sessions|runs)|for all future|for the rest of the session)\b/i,
  /\bignore\s+(?:all\s+|any\s+)?(?:previous|prior|earlier|above|system|current|the system|your)\b/i,
];

/** Mentions of authority that memory may not record at all, even as a description. */
const AUTHORITY_MENTIONS: readonly RegExp[] = [
  /\bapprov(?:e|ed|es|al|als|ing)\b/i,
  /\bpermi(?:ssion|ssions|tted|t)\b/i,
  /\bauthori[sz](?:e|ed|es|ation)\b/i,
  /\bsandbox\w*/i,
  /\bpolic(?:y|ies)\b/i,
];

function firstMatch(patterns: readonly RegExp[], text: string): string | null {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match !== null) return match[0].trim();
  }
  return null;
}

/** The phrase in `text` that claims an approval or a lifted safeguard, or `null`. */
export function findApprovalClaim(text: string): string | null {
  return firstMatch(APPROVAL_CLAIMS, text);
}

/**
 * The phrase that makes `text` unfit for checkpoint memory, or `null`. `allowImperatives` lets a
 * user constraint say "never edit the migrations" while still refusing approvals and policy.
 */
export function findPolicyText(text: string, options: { readonly allowImperatives?: boolean } = {}): string | null {
  return (
    firstMatch(APPROVAL_CLAIMS, text) ??
    firstMatch(AUTHORITY_MENTIONS, text) ??
    (options.allowImperatives === true ? null : firstMatch(BEHAVIOUR_RULES, text))
  );
}

/** Marker left where approval-like sentences were taken out. */
export const APPROVAL_REMOVED_MARKER = '[approval-like text removed]';

function removeClaimSentences(line: string): string {
  const kept: string[] = [];
  for (const sentence of splitSentences(line)) {
    if (findApprovalClaim(sentence) === null) kept.push(sentence.trim());
    else if (kept.at(-1) !== APPROVAL_REMOVED_MARKER) kept.push(APPROVAL_REMOVED_MARKER);
  }
  return kept.join(' ');
}

/**
 * `text` without the sentences that claim approvals or permissions; each run of removed sentences
 * becomes one marker, so the reader sees that something was left out but not what it said. Lines
 * without such a claim are kept exactly as they were. The result never contains a claim: a claim
 * spread over several sentences or lines takes the whole text with it.
 */
export function removeApprovalClaims(text: string): string {
  if (findApprovalClaim(text) === null) return text;
  const byLine = text
    .split('\n')
    .map((line) => (findApprovalClaim(line) === null ? line : removeClaimSentences(line)))
    .join('\n');
  if (findApprovalClaim(byLine) === null) return byLine;
  const bySentence = removeClaimSentences(byLine.replace(/\s+/g, ' '));
  return findApprovalClaim(bySentence) === null ? bySentence : APPROVAL_REMOVED_MARKER;
}

/** Index of the earliest approval-like claim in `text`, or -1. */
function earliestClaimIndex(text: string): number {
  let earliest = -1;
  for (const pattern of APPROVAL_CLAIMS) {
    const match = pattern.exec(text);
    if (match !== null && (earliest === -1 || match.index < earliest)) earliest = match.index;
  }
  return earliest;
}

/**
 * `text` without approval-like claims, cut to `max` characters. Cutting can itself make a claim
 * ("granted" cut to "grant…"), so the cut text is checked again and cut before any claim it shows.
 */
export function truncateWithoutClaims(text: string, max: number): string {
  let line = truncateText(removeApprovalClaims(text), max);
  for (let index = earliestClaimIndex(line); index !== -1; index = earliestClaimIndex(line)) {
    line = truncateText(`${line.slice(0, index).trimEnd()} ${APPROVAL_REMOVED_MARKER}`.trimStart(), max);
  }
  return line;
}
