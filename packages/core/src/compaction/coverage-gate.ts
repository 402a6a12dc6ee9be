import type { CheckpointCaps } from '../checkpoint/caps.js';
import { checkCoverage, type CoverageItem } from '../checkpoint/coverage.js';
import { validateCheckpoint } from '../checkpoint/validate.js';
import type { WorkingSetRenderInput } from '../checkpoint/working-set.js';
import type { ModelRequest, TokenEstimate } from '../model/adapter.js';
import { finishCheckpoint, withViewTokens, type BuiltCheckpoint } from './built-checkpoint.js';
import type { CompactTranscriptOptions } from './compact-transcript.js';
import { CHECKPOINT_COVERAGE_EVENT_VERSION, COVERAGE_EVENT_MAX_ITEMS } from './events.js';

/** A checkpoint and the estimate of the request it gives. */
export interface SizedCheckpoint {
  readonly built: BuiltCheckpoint;
  readonly estimate: TokenEstimate;
}

export type CoverageOutcome =
  /** `fellBack`: the strategy's checkpoint was refused and the deterministic one is used. */
  | (SizedCheckpoint & { readonly kind: 'covered'; readonly fellBack: boolean })
  | { readonly kind: 'refused'; readonly message: string };

function describe(items: readonly CoverageItem[]): string {
  const shown = items.slice(0, 3).map((item) => `${item.kind.replace('_', ' ')} #${item.seq} "${item.text}"`);
  return `${shown.join('; ')}${items.length > 3 ? `; and ${items.length - 3} more` : ''}`;
}

/**
 * The coverage check before a checkpoint is installed (`checkCoverage`): a checkpoint that
 * misses a user request, a stated constraint, a failed step or an edited file of its summarized
 * messages is repaired by adding them (`repairCoverage`), re-rendered and measured again; one
 * that cannot be repaired within the caps is refused. A refused strategy checkpoint falls back to
 * the deterministic `fallback`, checked the same way. Each repair and refusal is a
 * `context.checkpoint.coverage` event.
 */
export async function ensureCoverage(
  options: CompactTranscriptOptions,
  input: {
    readonly chosen: SizedCheckpoint;
    /** The deterministic checkpoint, when `chosen` is another strategy's. */
    readonly fallback?: SizedCheckpoint;
    readonly caps: CheckpointCaps;
    /** The current text of the files in hand, so a repaired forge-state checkpoint shows them as the original did. */
    readonly workingSet?: WorkingSetRenderInput;
    readonly estimate: (request: ModelRequest) => Promise<TokenEstimate>;
    readonly withCheckpoint: (built: BuiltCheckpoint) => ModelRequest;
  },
): Promise<CoverageOutcome> {
  const { caps, fallback } = input;
  const event = {
    type: 'context.checkpoint.coverage',
    version: CHECKPOINT_COVERAGE_EVENT_VERSION,
    step: options.step,
    trigger: options.trigger,
  } as const;
  const check = async (
    sized: SizedCheckpoint,
    canFallBack: boolean,
  ): Promise<SizedCheckpoint | { readonly refused: readonly CoverageItem[] }> => {
    const strategy = sized.built.checkpoint.strategy;
    const { missing, repair } = checkCoverage(sized.built.checkpoint, options.transcript, options.redact, caps);
    if (repair === null) return sized;
    if (repair.unrepaired.length === 0 && validateCheckpoint(repair.checkpoint, options.transcript.length, caps).ok) {
      const finished = finishCheckpoint(repair.checkpoint, caps, sized.built.nativeState, 0, input.workingSet);
      const estimate = await input.estimate(input.withCheckpoint(finished));
      const built = withViewTokens(finished, estimate.categories.checkpoint);
      options.emit({
        ...event,
        strategy,
        outcome: 'repaired',
        items: missing.slice(0, COVERAGE_EVENT_MAX_ITEMS),
        missingCount: missing.length,
        checkpointId: built.id,
      });
      return { built, estimate };
    }
    const refused = repair.unrepaired.length === 0 ? missing : repair.unrepaired;
    options.emit({
      ...event,
      strategy,
      outcome: 'refused',
      items: refused.slice(0, COVERAGE_EVENT_MAX_ITEMS),
      missingCount: refused.length,
      fallback: canFallBack ? 'forge-state' : 'none',
    });
    return { refused };
  };

  const first = await check(input.chosen, fallback !== undefined);
  if (!('refused' in first)) return { kind: 'covered', ...first, fellBack: false };
  const strategy = input.chosen.built.checkpoint.strategy;
  const message = `the ${strategy} checkpoint misses what the record holds and could not be repaired within its caps: ${describe(first.refused)}`;
  if (fallback === undefined) return { kind: 'refused', message };
  options.emit({
    type: 'context.compaction.failed',
    step: options.step,
    trigger: options.trigger,
    strategy,
    reason: 'coverage',
    message,
    error: { code: 'checkpoint_coverage', message, isRetryable: false },
    fallback: 'forge-state',
    ...(options.current === undefined ? {} : { previousCheckpointId: options.current.id }),
  });
  const second = await check(fallback, false);
  if ('refused' in second)
    return {
      kind: 'refused',
      message: `the forge-state checkpoint misses what the record holds and could not be repaired within its caps: ${describe(second.refused)}`,
    };
  return { kind: 'covered', ...second, fellBack: true };
}
