/*
 * Recognising test, build and lint results in old text, so a checkpoint can label them as what
 * they are: the outcome of one past run, never the state of the code now.
 */

const VERIFICATION_SUBJECT = /\b(?:tests?|specs?|test suites?|checks?|builds?|lint(?:er|ing)?|type-?checks?|tsc|vitest|jest|pytest|mocha|cargo test|go test|npm test|pnpm test|ci)\b/i;
const PASS_WORD = /\b(?:pass(?:ed|es|ing)?|succeed(?:ed|s)?|success(?:ful)?|green|all good|ok)\b|✓|✔/i;
const FAIL_WORD = /\b(?:fail(?:ed|s|ing|ure|ures)?|errors?|broken|red|crash(?:ed|es)?|assertion|exception|panick?(?:ed)?)\b|✗|✘|×/i;
const COUNT_RESULT = /\b\d+\s+(?:passed|failed|passing|failing|tests? passed|tests? failed)\b/i;
const STATUS_LINE = /^\s*(?:PASS|FAIL|FAILED|ERROR|OK)\b/m;
const ZERO_FAILURES = /\b(?:0|no|zero)\s+(?:failed|failures?|failing|errors?)\b|\bfailed:?\s*0\b|\berrors?:?\s*0\b/gi;

export type VerificationVerdict = 'failed' | 'passed' | 'unknown';

/** True when `text` reports the outcome of tests, a build, a lint or a type check. */
export function looksLikeVerification(text: string): boolean {
  return COUNT_RESULT.test(text) || STATUS_LINE.test(text) || (VERIFICATION_SUBJECT.test(text) && (PASS_WORD.test(text) || FAIL_WORD.test(text)));
}

/**
 * What `text` says the outcome was. Any sign of failure wins over any sign of success, so a report
 * such as "3 passed, 1 failed" is a failure, whatever part of it is later shown.
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

/**
 * The label put in front of a verification result. The verdict comes first so that cutting the
 * line can never leave a failure looking like a pass.
 */
export function historicalLabel(verdict: VerificationVerdict, runId: string | null): string {
  if (verdict === 'failed') return `[FAILED, historical, ${runName(runId)}]`;
  if (verdict === 'passed') return `[passed then, historical, ${runName(runId)}]`;
  return `[historical, ${runName(runId)}]`;
}
