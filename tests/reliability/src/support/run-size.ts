import { appendFileSync } from 'node:fs';

/*
 * Every suite runs twice over: a seeded, bounded run in CI, and a long run (`FORGE_LONG=1`, see
 * scripts/run-long.mjs) with the counts issue 10 asks for. Both print what they did.
 */

/** True in the long run: `FORGE_LONG=1`. */
export const LONG_RUN = process.env['FORGE_LONG'] === '1';

/** The seed every suite derives its randomness from; `FORGE_RELIABILITY_SEED` replays another run. */
export const RELIABILITY_SEED = parseSeed(process.env['FORGE_RELIABILITY_SEED']);

function parseSeed(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 20_250_611;
  const seed = Number(value);
  if (!Number.isSafeInteger(seed))
    throw new Error(`FORGE_RELIABILITY_SEED must be an integer, got ${JSON.stringify(value)}.`);
  return seed;
}

/** `ci` in the bounded run, `long` in the long one. */
export function runSize(ci: number, long: number): number {
  return LONG_RUN ? long : ci;
}

/** How long a vitest test of this suite may take: generous in the long run. */
export function suiteTimeoutMs(ciMs: number): number {
  return LONG_RUN ? 60 * 60 * 1000 : ciMs;
}

/**
 * Prints a suite's counts (`[reliability] crash-safety: kills=30 survived=30`) and, when
 * `FORGE_RELIABILITY_COUNTS` names a file, appends them to it as one JSON line for the summary
 * the long-run script prints.
 */
export function reportCounts(suite: string, counts: Readonly<Record<string, number>>): void {
  const line = Object.entries(counts)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  console.log(`[reliability] ${suite}: ${line} (seed ${RELIABILITY_SEED}${LONG_RUN ? ', long run' : ''})`);
  const file = process.env['FORGE_RELIABILITY_COUNTS'];
  if (file !== undefined && file !== '')
    appendFileSync(file, `${JSON.stringify({ suite, seed: RELIABILITY_SEED, long: LONG_RUN, counts })}\n`);
}
