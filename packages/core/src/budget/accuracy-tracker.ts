import type { UsageReconciliation } from './reconcile.js';

/** Running estimate-versus-usage statistics for one provider and model. */
export interface EstimatorAccuracy {
  readonly provider: string;
  readonly modelId: string;
  /** Steps for which the provider reported input tokens. */
  readonly samples: number;
  /** Mean of errorPercent (positive: estimates run high). */
  readonly meanErrorPercent: number;
  readonly meanAbsoluteErrorPercent: number;
  /** The largest undercount seen, in tokens (0 when the estimate never came in low). */
  readonly maxUndercountTokens: number;
  /** Steps whose undercount exceeded the safety buffer. */
  readonly undercountsBeyondBuffer: number;
  /** Set once undercounts beyond the buffer reach the limit; automatic compaction must not rely on this estimator. */
  readonly unsafeForAutoCompaction: boolean;
}

export interface EstimatorAccuracyTracker {
  /**
   * Adds one reconciled step. Returns the model's statistics and whether this sample is the one
   * that made the model unsafe (so the caller can announce it once).
   */
  record(
    provider: string,
    modelId: string,
    reconciliation: UsageReconciliation,
  ): { readonly accuracy: EstimatorAccuracy; readonly becameUnsafe: boolean };
  get(provider: string, modelId: string): EstimatorAccuracy | undefined;
  all(): readonly EstimatorAccuracy[];
}

interface Running {
  samples: number;
  errorPercentSum: number;
  absoluteErrorPercentSum: number;
  maxUndercountTokens: number;
  undercountsBeyondBuffer: number;
}

/**
 * In-memory accuracy statistics per provider/model, shared across the runs of a process. A model
 * whose estimator undercounts beyond the safety buffer `undercountLimit` times (default 3) is
 * marked `unsafeForAutoCompaction` for the rest of the process.
 */
export function createEstimatorAccuracyTracker(
  options: { readonly undercountLimit?: number } = {},
): EstimatorAccuracyTracker {
  const undercountLimit = options.undercountLimit ?? 3;
  const byModel = new Map<string, { readonly provider: string; readonly modelId: string; readonly running: Running }>();

  const snapshot = (provider: string, modelId: string, running: Running): EstimatorAccuracy => ({
    provider,
    modelId,
    samples: running.samples,
    meanErrorPercent: running.samples === 0 ? 0 : round(running.errorPercentSum / running.samples),
    meanAbsoluteErrorPercent: running.samples === 0 ? 0 : round(running.absoluteErrorPercentSum / running.samples),
    maxUndercountTokens: running.maxUndercountTokens,
    undercountsBeyondBuffer: running.undercountsBeyondBuffer,
    unsafeForAutoCompaction: running.undercountsBeyondBuffer >= undercountLimit,
  });

  return {
    record(provider, modelId, reconciliation) {
      const key = `${provider}\u0000${modelId}`;
      let entry = byModel.get(key);
      if (entry === undefined) {
        entry = {
          provider,
          modelId,
          running: {
            samples: 0,
            errorPercentSum: 0,
            absoluteErrorPercentSum: 0,
            maxUndercountTokens: 0,
            undercountsBeyondBuffer: 0,
          },
        };
        byModel.set(key, entry);
      }
      const { running } = entry;
      const wasUnsafe = running.undercountsBeyondBuffer >= undercountLimit;
      if (reconciliation.errorTokens !== undefined) {
        running.samples += 1;
        const percent = reconciliation.errorPercent ?? 0;
        running.errorPercentSum += percent;
        running.absoluteErrorPercentSum += Math.abs(percent);
        running.maxUndercountTokens = Math.max(running.maxUndercountTokens, -reconciliation.errorTokens);
        if (reconciliation.undercountBeyondBuffer) running.undercountsBeyondBuffer += 1;
      }
      const accuracy = snapshot(provider, modelId, running);
      return { accuracy, becameUnsafe: accuracy.unsafeForAutoCompaction && !wasUnsafe };
    },
    get(provider, modelId) {
      const entry = byModel.get(`${provider}\u0000${modelId}`);
      return entry === undefined ? undefined : snapshot(entry.provider, entry.modelId, entry.running);
    },
    all: () => [...byModel.values()].map((entry) => snapshot(entry.provider, entry.modelId, entry.running)),
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
