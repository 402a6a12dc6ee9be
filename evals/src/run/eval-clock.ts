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

export function createEvalClock(start: number = Date.now()): EvalClock {
  let current = start;
  return {
    now: () => current,
    advance(milliseconds) {
      current += Math.max(0, milliseconds);
    },
  };
}
