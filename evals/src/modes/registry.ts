import { InvalidInputError } from '@forge/core';
import { slidingWindowMode, userSummaryMode } from './baselines.js';
import { compactForgeStateHarnessMode, offMode, shadowHarnessMode, warnMode } from './forge-modes.js';
import type { ModeId, ModeRunner } from './types.js';

function notInThisBuild(id: ModeId, label: string, reason: string): ModeRunner {
  return {
    id,
    label,
    family: 'forge',
    compacts: true,
    implementation: 'not available',
    unavailable: reason,
    start() {
      throw new InvalidInputError({ message: `Mode ${id} is not available in this build: ${reason}` });
    },
  };
}

/** Every mode, in report order. Wiring a new mode means replacing or adding one entry here. */
export const MODE_RUNNERS: readonly ModeRunner[] = [
  offMode,
  warnMode,
  shadowHarnessMode,
  compactForgeStateHarnessMode,
  notInThisBuild(
    'compact:model-structured',
    'compact (model-structured): compactor model writes the structured summary',
    'the run loop does not run a compactor model yet (issue 5); the harness has no stand-in for it',
  ),
  notInThisBuild(
    'compact:provider-native',
    'compact (provider-native): the provider compacts, Forge keeps the opaque item',
    'the run loop does not call ModelAdapter.compact yet (issue 5)',
  ),
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
      (runner) => runner.id === id || (id === 'compact' && runner.id.startsWith('compact:')) || (id === 'baselines' && runner.family === 'baseline'),
    );
    if (matching.length === 0) {
      throw new InvalidInputError({ message: `Unknown mode "${id}"; choose from ${[...MODE_IDS, 'compact', 'baselines'].join(', ')}.` });
    }
    for (const runner of matching) wanted.add(runner.id);
  }
  return MODE_RUNNERS.filter((runner) => wanted.has(runner.id));
}
