import { ForgeError } from '@forge/core';
import fc from 'fast-check';
import { RELIABILITY_SEED } from './run-size.js';

/** What one fuzz target did: cases run, the slowest case, and how much resident memory grew. */
export interface FuzzStats {
  readonly cases: number;
  readonly slowestCaseMs: number;
  readonly rssGrowthMb: number;
}

export interface FuzzOptions {
  /** Names the target in the seed, so each target gets its own sequence from the suite seed. */
  readonly target: string;
  readonly numRuns: number;
  /** A case that takes longer fails as a hang (async cases are abandoned at this point). */
  readonly caseTimeoutMs: number;
}

/** A seed per target derived from the suite seed, so targets do not share a sequence. */
export function targetSeed(target: string): number {
  let hash = RELIABILITY_SEED | 0;
  for (const character of target) hash = Math.imul(hash ^ character.charCodeAt(0), 16777619);
  return hash | 0;
}

/** True for the errors a Forge module is allowed to raise on bad input: its typed `ForgeError`s. */
export function isTypedError(error: unknown): boolean {
  return ForgeError.isInstance(error);
}

/** Rethrows `error` unless `allowed` accepts it, naming the input that caused it. */
export function onlyTypedErrors(error: unknown, allowed: (error: unknown) => boolean = isTypedError): void {
  if (allowed(error)) return;
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  throw new Error(`an untyped error escaped: ${detail}`, { cause: error });
}

function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the case did not finish within ${timeoutMs} ms (a hang)`)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs `check` on `numRuns` generated inputs with a seed derived from the suite seed. Each case
 * must finish within `caseTimeoutMs`; a failure is shrunk and reported with the seed to replay it.
 */
export async function fuzz<T>(
  arbitrary: fc.Arbitrary<T>,
  check: (value: T) => Promise<void> | void,
  options: FuzzOptions,
): Promise<FuzzStats> {
  const rssBefore = process.memoryUsage().rss;
  let cases = 0;
  let slowestCaseMs = 0;
  const property = fc.asyncProperty(arbitrary, async (value) => {
    const started = performance.now();
    await withTimeout(
      Promise.resolve().then(() => check(value)),
      options.caseTimeoutMs,
    );
    const elapsed = performance.now() - started;
    cases += 1;
    slowestCaseMs = Math.max(slowestCaseMs, elapsed);
    if (elapsed > options.caseTimeoutMs)
      throw new Error(`the case took ${Math.round(elapsed)} ms, more than ${options.caseTimeoutMs} ms (a hang)`);
  });
  await fc.assert(property, { seed: targetSeed(options.target), numRuns: options.numRuns, endOnFailure: true });
  const rssGrowthMb = Math.max(0, (process.memoryUsage().rss - rssBefore) / (1024 * 1024));
  return { cases, slowestCaseMs: Math.round(slowestCaseMs), rssGrowthMb: Math.round(rssGrowthMb) };
}

/** Resident memory may grow by at most this much over one target's run: bounded inputs, no leak per case. */
export const MAX_RSS_GROWTH_MB = 768;

/** Random edits of `bytes`: flips, inserted and deleted runs, truncation, duplication. */
export function byteMutations(bytes: Uint8Array): fc.Arbitrary<Uint8Array> {
  const edit = fc.oneof(
    fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), data: fc.uint8Array({ maxLength: 64 }) }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 256 }) }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 512 }) }),
  );
  return fc.array(edit, { minLength: 1, maxLength: 6 }).map((edits) => {
    let current = Buffer.from(bytes);
    for (const item of edits) {
      const at = current.length === 0 ? 0 : item.at % (current.length + 1);
      switch (item.kind) {
        case 'flip':
          if (current.length > 0) current[at % current.length] = item.value;
          break;
        case 'insert':
          current = Buffer.concat([current.subarray(0, at), item.data, current.subarray(at)]);
          break;
        case 'delete':
          current = Buffer.concat([current.subarray(0, at), current.subarray(at + item.length)]);
          break;
        case 'truncate':
          current = current.subarray(0, at);
          break;
        case 'duplicate':
          current = Buffer.concat([current.subarray(0, at + item.length), current.subarray(at)]);
          break;
      }
    }
    return current;
  });
}

/** Replaces the value at a random path inside `value` (objects and arrays) with `replacement`, or removes it. */
export function mutateJson(value: unknown, choices: readonly number[], replacement: unknown, remove: boolean): unknown {
  if (choices.length === 0 || value === null || typeof value !== 'object') return remove ? undefined : replacement;
  const [choice = 0, ...rest] = choices;
  if (Array.isArray(value)) {
    if (value.length === 0) return remove ? value : [replacement];
    const index = choice % value.length;
    const copy = [...value];
    const inner = mutateJson(copy[index], rest, replacement, remove);
    if (inner === undefined) copy.splice(index, 1);
    else copy[index] = inner;
    return copy;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return remove ? value : { fuzz: replacement };
  const key = keys[choice % keys.length] as string;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const inner = mutateJson(copy[key], rest, replacement, remove);
  if (inner === undefined) delete copy[key];
  else copy[key] = inner;
  return copy;
}

/** A structure-aware edit of a JSON value: some path replaced by any JSON (or removed). */
export function jsonMutations(value: unknown): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      fc.array(fc.nat(), { minLength: 0, maxLength: 8 }),
      fc.jsonValue({ maxDepth: 3 }),
      fc.boolean(),
      fc.integer({ min: 1, max: 3 }),
    )
    .map(([choices, replacement, remove, times]) => {
      let current = value;
      for (let time = 0; time < times; time += 1)
        current = mutateJson(current, choices.slice(time), replacement, remove && time === 0);
      return current;
    });
}
