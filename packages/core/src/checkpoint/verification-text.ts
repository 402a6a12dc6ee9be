/*
 * Recognising test, build and lint reports in old text. Words never decide an outcome here: they
 * only mark a line as a report of some past run (so a checkpoint labels it historical), and let
 * the host catch a model that calls passing what the record shows failed. Whether a step failed
 * comes from its result alone (see `step-outcome.ts`).
 */

const VERIFICATION_SUBJECT =
  /\b(?:tests?|specs?|test suites?|checks?|builds?|lint(?:er|ing)?|type-?checks?|tsc|vitest|jest|pytest|mocha|cargo test|go test|npm test|pnpm test|ci)\b/i;
const PASS_WORD = /\b(?:pass(?:ed|es|ing)?|succeed(?:ed|s)?|success(?:ful)?|green|all good|ok)\b|✓|✔/i;
const FAIL_WORD =
  /\b(?:fail(?:ed|s|ing|ure|ures)?|errors?|broken|red|crash(?:ed|es)?|assertion|exception|panick?(?:ed)?)\b|✗|✘|×/i;
const COUNT_RESULT = /\b\d+\s+(?:passed|failed|passing|failing|tests? passed|tests? failed)\b/i;
const STATUS_LINE = /^\s*(?:PASS|FAIL|FAILED|ERROR|OK)\b/m;
const ZERO_FAILURES = /\b(?:0|no|zero)\s+(?:failed|failures?|failing|errors?)\b|\bfailed:?\s*0\b|\berrors?:?\s*0\b/gi;

export type VerificationVerdict = 'failed' | 'passed' | 'unknown';

/** True when `text` talks about the outcome of tests, a build, a lint or a type check. */
export function looksLikeVerification(text: string): boolean {
  return (
    COUNT_RESULT.test(text) ||
    STATUS_LINE.test(text) ||
    (VERIFICATION_SUBJECT.test(text) && (PASS_WORD.test(text) || FAIL_WORD.test(text)))
  );
}

/**
 * What `text` claims the outcome was, any sign of failure winning. Only for checking a model's
 * claim against the record (a summary calling a failed run passing); never a label.
 */
export function verificationVerdict(text: string): VerificationVerdict {
  const withoutZeroCounts = text.replace(ZERO_FAILURES, ' ');
  if (FAIL_WORD.test(withoutZeroCounts)) return 'failed';
  if (PASS_WORD.test(withoutZeroCounts) || COUNT_RESULT.test(withoutZeroCounts)) return 'passed';
  return 'unknown';
}

/** A run id as labels show it: Forge ids already start with `run`, others get the word in front. */
export function runName(runId: string | null): string {
  if (runId === null) return 'run unknown';
  const id = runId.slice(0, 40);
  return id.startsWith('run') ? id : `run ${id}`;
}
