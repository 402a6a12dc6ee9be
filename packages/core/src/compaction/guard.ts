/**
 * Limits of the no-progress guard. A compaction that changes too little is not worth repeating:
 * when the window is filled by what cannot be compacted (instructions, the current request, tool
 * schemas, this run's own tool calls), compacting again only burns time and money.
 */
export interface CompactionGuardLimits {
  /** Compactions one run may attempt (default 3). */
  readonly maxAttemptsPerRun: number;
  /** A compaction must reclaim at least this many tokens... (default 8,000) */
  readonly minReclaimTokens: number;
  /** ...or this share of the request before it, whichever is larger (default 0.2). */
  readonly minReclaimRatio: number;
}

export const DEFAULT_COMPACTION_GUARD_LIMITS: CompactionGuardLimits = Object.freeze({
  maxAttemptsPerRun: 3,
  minReclaimTokens: 8_000,
  minReclaimRatio: 0.2,
});

/** Why the guard stopped a run; the `reason` of `context.limit_reached`. */
export type GuardStopReason = 'compaction_attempt_limit' | 'compaction_same_source' | 'compaction_no_progress';

export type GuardVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: GuardStopReason; readonly message: string };

/**
 * Tracks the compactions of one run. A compaction is refused before it starts when the run has
 * used its attempts; after it, a result is judged: the same source hash twice means nothing new was
 * summarized, and reclaiming less than max(minReclaimTokens, minReclaimRatio × before) is too
 * little. Either way the run must not try again and, if the request still does not fit, it stops.
 */
export class CompactionGuard {
  readonly limits: CompactionGuardLimits;
  private attempts = 0;
  private readonly sources = new Set<string>();
  private stalled = false;

  constructor(limits: Partial<CompactionGuardLimits> = {}) {
    this.limits = { ...DEFAULT_COMPACTION_GUARD_LIMITS, ...limits };
  }

  /** Compactions attempted so far. */
  get attemptCount(): number {
    return this.attempts;
  }

  /** True once a compaction made too little progress: no further attempt is worth it in this run. */
  get hasStalled(): boolean {
    return this.stalled;
  }

  /** Whether another attempt may start; counts it when it may. */
  beginAttempt(): GuardVerdict {
    if (this.stalled) {
      return {
        ok: false,
        reason: 'compaction_no_progress',
        message: 'an earlier compaction in this run reclaimed too little to try again',
      };
    }
    if (this.attempts >= this.limits.maxAttemptsPerRun) {
      return {
        ok: false,
        reason: 'compaction_attempt_limit',
        message: `this run already compacted ${this.attempts} times, its limit`,
      };
    }
    this.attempts += 1;
    return { ok: true };
  }

  /** The least a compaction of a request of `tokensBefore` must reclaim. */
  minimumReclaim(tokensBefore: number): number {
    return Math.max(this.limits.minReclaimTokens, Math.ceil(this.limits.minReclaimRatio * tokensBefore));
  }

  /**
   * Records what a compaction summarized without judging how much it reclaimed (after a provider
   * overflow the estimate is known to be wrong). False when the same messages were compacted before.
   */
  recordSource(sourceHash: string): boolean {
    if (this.sources.has(sourceHash)) {
      this.stalled = true;
      return false;
    }
    this.sources.add(sourceHash);
    return true;
  }

  /** Judges a finished compaction by what it summarized and what it reclaimed. */
  judge(result: {
    readonly sourceHash: string;
    readonly tokensBefore: number;
    readonly tokensAfter: number;
  }): GuardVerdict {
    const reclaimed = result.tokensBefore - result.tokensAfter;
    if (this.sources.has(result.sourceHash)) {
      this.stalled = true;
      return {
        ok: false,
        reason: 'compaction_same_source',
        message: `the same messages (sha256 ${result.sourceHash.slice(0, 12)}) were already compacted in this run`,
      };
    }
    this.sources.add(result.sourceHash);
    const minimum = this.minimumReclaim(result.tokensBefore);
    if (reclaimed < minimum) {
      this.stalled = true;
      return {
        ok: false,
        reason: 'compaction_no_progress',
        message: `compaction reclaimed ${reclaimed.toLocaleString('en-US')} tokens, less than the ${minimum.toLocaleString('en-US')} a useful compaction must`,
      };
    }
    return { ok: true };
  }
}
