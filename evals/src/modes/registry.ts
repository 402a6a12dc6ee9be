import { InvalidInputError } from '@forge/core';
import { slidingWindowMode, userSummaryMode } from './baselines.js';
import { fullHistoryMode, offMode, warnMode } from './forge-modes.js';
import {
  compactForgeStateMode,
  compactModelStructuredMode,
  compactProviderNativeMode,
  shadowSessionMode,
} from './session-compaction-modes.js';
import type { ModeId, ModeRunner } from './types.js';

/** Every mode, in report order. Wiring a new mode means replacing or adding one entry here. */
export const MODE_RUNNERS: readonly ModeRunner[] = [
  offMode,
  warnMode,
  shadowSessionMode,
  compactForgeStateMode,
  compactModelStructuredMode,
  compactProviderNativeMode,
  fullHistoryMode,
  slidingWindowMode,
  userSummaryMode,
];

export const MODE_IDS: readonly ModeId[] = MODE_RUNNERS.map((runner) => runner.id);

/**
 * The runners for `ids` (all when omitted), in report order. `compact` stands for every compact
 * strategy and `baselines` for both baselines.
 */
export function selectModes(ids?: readonly string[]): ModeRunner[] {
  if (ids === undefined || ids.length === 0) return [...MODE_RUNNERS];
  const wanted = new Set<string>();
  for (const id of ids) {
    const matching = MODE_RUNNERS.filter(
      (runner) =>
        runner.id === id ||
        (id === 'compact' && runner.id.startsWith('compact:')) ||
        (id === 'baselines' && runner.family === 'baseline'),
    );
    if (matching.length === 0) {
      throw new InvalidInputError({
        message: `Unknown mode "${id}"; choose from ${[...MODE_IDS, 'compact', 'baselines'].join(', ')}.`,
      });
    }
    for (const runner of matching) wanted.add(runner.id);
  }
  return MODE_RUNNERS.filter((runner) => wanted.has(runner.id));
}
