import { sha256Hex } from '@forge/core';

/**
 * The time an eval session lives in: it moves only when the harness says, so the simulated prompt
 * cache and Forge's cost gate see the same, reproducible gaps between requests, however fast or
 * loaded the machine is.
 */
export interface EvalClock {
  now(): number;
  advance(milliseconds: number): void;
}

/** What a model call takes on the eval clock: the simulated provider answers after this long. */
export const MODEL_CALL_MS = 15_000;
/** Time between the end of one turn and the user's next message. */
export const TURN_GAP_MS = 60_000;

/** Where every eval session's clock starts, so times and the ids made from them are the same on every run. */
export const EVAL_EPOCH_MS = Date.UTC(2026, 0, 1);

export function createEvalClock(start: number = EVAL_EPOCH_MS): EvalClock {
  let current = start;
  return {
    now: () => current,
    advance(milliseconds) {
      current += Math.max(0, milliseconds);
    },
  };
}

/**
 * Run ids shaped like the product's (`run_<time>_<12 hex digits>`) but reproducible: the time from
 * `now`, the digits from the fixture and a counter. Checkpoints cite runs, so a random id would
 * change what the model is sent, and so the token counts, from one eval run to the next.
 */
export function evalRunIds(fixtureId: string, now: () => number): () => string {
  let made = 0;
  return () => {
    made += 1;
    return `run_${now().toString(36)}_${sha256Hex(`${fixtureId}/${made}`).slice(0, 12)}`;
  };
}
