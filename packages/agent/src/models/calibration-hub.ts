import { wrapModelAdapter, type ForgeEvent, type ModelAdapter } from '@forge/core';
import {
  formatTokens,
  implausibleSampleReason,
  overcountCorrection,
  scaleEstimate,
  summarizeCalibration,
  undercountCorrection,
  type CalibrationSample,
  type CalibrationSummary,
} from '@forge/core/budget';
import { forgetCalibration, readCalibration, recordCalibration, type ModelCalibration } from '@forge/persistence';

/** The counter name of core's conservative estimate: the only counter a correction is offered for. */
export const CONSERVATIVE_COUNTER = 'conservative';

/** What one model's counts are calibrated as: its name in model ids and what produces its estimates. */
export interface CalibrationIdentity {
  /** `provider:id` as the user names it (`compatible:<name>` for a configured server). */
  readonly name: string;
  /** What counts (`o200k_base`, `deepseek-v3`, `qwen3`, a tokenizer path, `conservative`); a change starts a new history. */
  readonly counter: string;
  /** A configured `estimateScale`, applied to every estimate before calibration sees it. */
  readonly scale?: number;
}

/** A model's calibration as `forge context` and `forge models list` show it. */
export interface CalibrationView {
  readonly summary: CalibrationSummary | undefined;
  /** The factor automatic budgeting applies because the estimator undercounted beyond the buffer. */
  readonly correction: number | undefined;
  /** A scale the user may configure because a conservative estimator consistently overcounts. */
  readonly offeredScale: number | undefined;
}

interface Tracked {
  readonly identity: CalibrationIdentity;
  readonly counter: string;
  readonly samples: CalibrationSample[];
  readonly pending: CalibrationSample[];
  /** Tokens the budget was given → tokens the configured estimator said, for the latest estimates. */
  readonly given: Map<number, number>;
  noticed: boolean;
  /** Whether the model's counter is its provider's own tokenizer: its correction is then capped. */
  exact: boolean;
  /** The model's window: a report above it is impossible. */
  windowTokens: number | undefined;
  ignoredNoticed: boolean;
}

/** The counter string stored with the samples: the tokenizer, and any configured scale. */
function storedCounter(identity: CalibrationIdentity): string {
  return identity.scale === undefined || identity.scale === 1
    ? identity.counter
    : `${identity.counter} × ${identity.scale}`;
}

/**
 * Learns each model's estimate-versus-usage error across runs (FORGE_HOME/calibration.json) and
 * applies it: an estimator that undercounted by more than the safety buffer has its estimates
 * scaled by the worst reported/estimated ratio, which every budget and compaction decision then
 * uses (it goes through the adapter's estimator), and `notice` is told once. Usage is observed from
 * `context.usage.reconciled` events and written by `flush`.
 */
export class CalibrationHub {
  private readonly forgeHome: string;
  private readonly bufferTokens: number;
  private readonly notice: (line: string) => void;
  private stored: Promise<ReadonlyMap<string, ModelCalibration>> | undefined;
  private readonly tracked = new Map<string, Tracked>();
  private readonly byAdapter = new Map<string, Tracked>();

  constructor(options: {
    readonly forgeHome: string;
    readonly bufferTokens: number;
    readonly notice: (line: string) => void;
  }) {
    this.forgeHome = options.forgeHome;
    this.bufferTokens = options.bufferTokens;
    this.notice = options.notice;
  }

  /** The stored histories, read once per process. */
  history(): Promise<ReadonlyMap<string, ModelCalibration>> {
    this.stored ??= readCalibration(this.forgeHome).catch(() => new Map());
    return this.stored;
  }

  /** `adapter` with calibrated estimates; its usage is learned from then on. */
  async wrap(adapter: ModelAdapter, identity: CalibrationIdentity): Promise<ModelAdapter> {
    const tracked = await this.track(identity);
    tracked.exact = adapter.capabilities.estimation === 'provider-tokenizer';
    tracked.windowTokens = adapter.capabilities.contextWindowTokens;
    this.byAdapter.set(`${adapter.provider}\u0000${adapter.modelId}`, tracked);
    const correctionNow = (): number | undefined => {
      const correction = this.correctionOf(tracked);
      if (correction !== undefined && !tracked.noticed) {
        tracked.noticed = true;
        this.notice(this.correctionLine(tracked, correction));
      }
      return correction;
    };
    return wrapModelAdapter({
      model: adapter,
      middleware: {
        estimateRequestTokens: async (request, estimate) => {
          const raw = await estimate(request);
          const configured = identity.scale === undefined ? raw : scaleEstimate(raw, identity.scale);
          const correction = correctionNow();
          const given =
            correction === undefined
              ? configured
              : { ...scaleEstimate(configured, correction), calibration: { factor: correction, model: identity.name } };
          tracked.given.set(given.tokens, configured.tokens);
          if (tracked.given.size > 64) tracked.given.delete(tracked.given.keys().next().value as number);
          return given;
        },
        // The same factors on each message, so a tail is cut with the counts the budget uses.
        countMessageTokens: async (messages, count) => {
          const raw = await count(messages);
          const factor = (identity.scale ?? 1) * (correctionNow() ?? 1);
          return factor === 1 ? raw : raw.map((tokens) => Math.ceil(tokens * factor));
        },
      },
    });
  }

  /** The calibration of a model (stored history plus what this process learned). */
  async view(identity: CalibrationIdentity): Promise<CalibrationView> {
    const tracked = await this.track(identity);
    const summary = this.summaryOf(tracked);
    return {
      summary,
      correction: this.correctionOf(tracked),
      offeredScale: identity.counter === CONSERVATIVE_COUNTER ? overcountCorrection(summary) : undefined,
    };
  }

  /** Learns from a run event: provider usage set beside the estimate made for the same request. */
  observe(event: ForgeEvent): void {
    if (event.type !== 'context.usage.reconciled' || event.reportedInputTokens === undefined) return;
    const tracked = this.byAdapter.get(`${event.model.provider}\u0000${event.model.modelId}`);
    if (tracked === undefined) return;
    const sample = {
      estimated: tracked.given.get(event.estimatedTokens) ?? event.estimatedTokens,
      reported: event.reportedInputTokens,
    };
    const reason = implausibleSampleReason(sample, tracked.windowTokens);
    if (reason !== undefined) {
      if (!tracked.ignoredNoticed) {
        tracked.ignoredNoticed = true;
        this.notice(
          `ignored an impossible usage report for ${tracked.identity.name} (${formatTokens(sample.reported)} input tokens for a request estimated at ${formatTokens(sample.estimated)}: ${reason}); token calibration is unchanged`,
        );
      }
      return;
    }
    tracked.samples.push(sample);
    tracked.pending.push(sample);
  }

  /** Forgets a model's recorded usage, stored and in this process. */
  async reset(name: string): Promise<boolean> {
    for (const tracked of this.tracked.values()) {
      if (tracked.identity.name !== name) continue;
      tracked.samples.splice(0);
      tracked.pending.splice(0);
    }
    return forgetCalibration(this.forgeHome, name);
  }

  /** Writes what was learned since the last flush. A failed write is reported through `notice`, never thrown. */
  async flush(): Promise<void> {
    for (const tracked of this.tracked.values()) {
      if (tracked.pending.length === 0) continue;
      const samples = tracked.pending.splice(0);
      try {
        await recordCalibration(this.forgeHome, { model: tracked.identity.name, counter: tracked.counter, samples });
      } catch (error) {
        this.notice(
          `could not save token calibration to ${this.forgeHome} (${error instanceof Error ? error.message : String(error)}); it is kept for this process only`,
        );
      }
    }
  }

  private async track(identity: CalibrationIdentity): Promise<Tracked> {
    const counter = storedCounter(identity);
    const key = `${identity.name}\u0000${counter}`;
    const known = this.tracked.get(key);
    if (known !== undefined) return known;
    const stored = (await this.history()).get(identity.name);
    const tracked: Tracked = {
      identity,
      counter,
      samples: stored?.counter === counter ? [...stored.samples] : [],
      pending: [],
      given: new Map(),
      noticed: false,
      exact: identity.counter !== CONSERVATIVE_COUNTER,
      windowTokens: undefined,
      ignoredNoticed: false,
    };
    this.tracked.set(key, tracked);
    return tracked;
  }

  private summaryOf(tracked: Tracked): CalibrationSummary | undefined {
    return summarizeCalibration(tracked.samples, this.bufferTokens);
  }

  private correctionOf(tracked: Tracked): number | undefined {
    return undercountCorrection(this.summaryOf(tracked), tracked.exact ? 'exact' : 'estimated');
  }

  private correctionLine(tracked: Tracked, correction: number): string {
    const summary = this.summaryOf(tracked);
    return (
      `${tracked.identity.name} has undercounted requests by more than the ${formatTokens(this.bufferTokens)}-token safety buffer ` +
      `(${summary?.undercountsBeyondBuffer ?? 0} of ${summary?.samples ?? 0} recorded); this session budgets and compacts with its estimates × ${correction} (the 90th-percentile measured ratio${tracked.exact && correction < (summary?.correctionRatio ?? 0) ? ', capped for an exact tokenizer' : ''}); forge models calibration reset ${tracked.identity.name} forgets it`
    );
  }
}
