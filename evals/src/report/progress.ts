import type { EvalProgress } from '../run/run-eval.js';
import { runLabel } from './format.js';

/** One line saying where the run is: a bar, runs done of all, and the fixture, mode and turn now running. */
export function renderProgress(progress: EvalProgress, width = 20): string {
  const share = progress.total === 0 ? 1 : progress.done / progress.total;
  const filled = Math.round(share * width);
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
  const where = `${runLabel(progress, progress.agent !== undefined)}, turn ${progress.turn + 1}/${progress.turns}`;
  return `${bar} ${progress.done}/${progress.total} ${where}`;
}
