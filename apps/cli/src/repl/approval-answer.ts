import type { ConfirmAnswer } from '@forge/tools';

/** The choices shown under an approval request. */
export const APPROVAL_CHOICES = '[y] once  [s] this session  [n] deny (+ optional feedback)';

/**
 * Reads an answer to an approval prompt: `y`/`yes` runs the call once, `s`/`session` allows the
 * tool for the rest of the session, `n`/`no` denies, and anything after `n` (after a space, `:`
 * or `,`) is feedback for the model. Allowing answers must stand alone, so an unclear answer
 * such as `yes but not that file` is asked again (undefined) instead of granting anything.
 */
export function parseApprovalAnswer(text: string): ConfirmAnswer | undefined {
  const match = /^\s*([a-z]+)(?:\s*[:,]\s*|\s+|$)([\s\S]*)$/i.exec(text);
  if (match === null) return undefined;
  const word = (match[1] ?? '').toLowerCase();
  const rest = (match[2] ?? '').trim();
  if (word === 'n' || word === 'no') return rest.length > 0 ? { kind: 'deny', feedback: rest } : { kind: 'deny' };
  if (rest.length > 0) return undefined;
  if (word === 'y' || word === 'yes') return { kind: 'once' };
  if (word === 's' || word === 'session') return { kind: 'session' };
  return undefined;
}
