import type { TokenEstimate } from '../model/adapter.js';

/** One request: what the estimator said before sending and what the provider reported reading. */
export interface CalibrationSample {
  readonly estimated: number;
  readonly reported: number;
}

/** Estimate-versus-usage statistics of one model's estimator over its recorded requests. */
export interface CalibrationSummary {
  /** Plausible samples the statistics rest on. */
  readonly samples: number;
  /** Recorded samples left out as impossible (a negative or zero count, a ratio outside {@link PLAUSIBLE_RATIO}). */
  readonly ignoredSamples: number;
  /** Mean of (estimated − reported) / reported, in percent: positive when estimates run high. */
  readonly meanErrorPercent: number;
  /** The error of the sample furthest from the reported count, in percent (its sign kept). */
  readonly worstErrorPercent: number;
  /** The largest reported / estimated ratio seen: above 1 when the estimator undercounted. */
  readonly worstRatio: number;
  /**
   * The reported / estimated ratio at the 90th percentile: what an undercount correction scales by.
   * One stray report among ten or more does not decide it, as it would the worst ratio.
   */
  readonly correctionRatio: number;
  /** Samples whose undercount exceeded the safety buffer. */
  readonly undercountsBeyondBuffer: number;
}

/**
 * The reported / estimated ratios a sample may have and still be learned from: no estimator Forge
 * ships is off by a factor of four, so a report outside it is a provider or gateway error.
 */
export const PLAUSIBLE_RATIO = { min: 0.25, max: 4 } as const;

/**
 * The largest correction applied to an exact tokenizer's count: it counts the provider's own
 * tokens, so it can only be off by framing, never by a factor.
 */
export const MAX_EXACT_CORRECTION = 1.25;

const round1 = (value: number): number => Math.round(value * 10) / 10;

/**
 * Why a usage report must not be learned from, or undefined when it may: a count that is not a
 * positive whole number, a report above the model's window (when known), or a ratio outside
 * {@link PLAUSIBLE_RATIO}.
 */
export function implausibleSampleReason(sample: CalibrationSample, windowTokens?: number): string | undefined {
  const { estimated, reported } = sample;
  if (!Number.isSafeInteger(estimated) || estimated <= 0) return `the estimate ${estimated} is not a positive count`;
  if (!Number.isSafeInteger(reported) || reported <= 0) return `the reported ${reported} is not a positive count`;
  if (windowTokens !== undefined && reported > windowTokens)
    return `the reported count is above the model's ${windowTokens.toLocaleString('en-US')}-token window`;
  const ratio = reported / estimated;
  if (ratio < PLAUSIBLE_RATIO.min || ratio > PLAUSIBLE_RATIO.max)
    return `the reported count is ${ratio < 1 ? `1/${Math.round(1 / ratio)}` : `${Math.round(ratio)}×`} of the estimate`;
  return undefined;
}

/** The value at quantile `q` (nearest rank, rounding up) of `values`, which must not be empty. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

/** Statistics of `samples`; undefined when there is none to learn from. */
export function summarizeCalibration(
  samples: readonly CalibrationSample[],
  bufferTokens: number,
): CalibrationSummary | undefined {
  const valid = samples.filter((sample) => implausibleSampleReason(sample) === undefined);
  if (valid.length === 0) return undefined;
  let sum = 0;
  let worst = 0;
  let beyond = 0;
  const ratios: number[] = [];
  for (const { estimated, reported } of valid) {
    const error = ((estimated - reported) / reported) * 100;
    sum += error;
    if (Math.abs(error) > Math.abs(worst)) worst = error;
    ratios.push(reported / estimated);
    if (reported - estimated > bufferTokens) beyond += 1;
  }
  const round3 = (value: number): number => Math.round(value * 1000) / 1000;
  return {
    samples: valid.length,
    ignoredSamples: samples.length - valid.length,
    meanErrorPercent: round1(sum / valid.length),
    worstErrorPercent: round1(worst),
    worstRatio: round3(Math.max(...ratios)),
    correctionRatio: round3(quantile(ratios, 0.9)),
    undercountsBeyondBuffer: beyond,
  };
}

/**
 * The factor automatic budgeting must apply to this estimator's counts: once it has undercounted
 * by more than the safety buffer, its raw estimate is no longer trusted and is scaled by the
 * 90th-percentile reported/estimated ratio, at most {@link MAX_EXACT_CORRECTION} for an `exact`
 * tokenizer. Undefined while the raw estimate is safe.
 */
export function undercountCorrection(
  summary: CalibrationSummary | undefined,
  counter: 'exact' | 'estimated' = 'estimated',
): number | undefined {
  if (summary === undefined || summary.undercountsBeyondBuffer === 0 || summary.correctionRatio <= 1) return undefined;
  return counter === 'exact' ? Math.min(summary.correctionRatio, MAX_EXACT_CORRECTION) : summary.correctionRatio;
}

/** Samples a consistent overcount must rest on before a correction is offered. */
export const MIN_SAMPLES_FOR_OFFER = 5;

/**
 * For an estimator that overcounts on every recorded request (by more than 10 % on average, over
 * at least {@link MIN_SAMPLES_FOR_OFFER} requests): the scale that would still cover the worst
 * request, rounded up to two decimals. It is offered to the user, never applied silently.
 */
export function overcountCorrection(summary: CalibrationSummary | undefined): number | undefined {
  if (
    summary === undefined ||
    summary.samples < MIN_SAMPLES_FOR_OFFER ||
    summary.worstRatio >= 1 ||
    summary.meanErrorPercent <= 10
  )
    return undefined;
  return Math.ceil(summary.worstRatio * 100) / 100;
}

/**
 * `estimate` multiplied by `factor`: every category scaled and rounded up, so the categories
 * still sum to `tokens` and what a compaction can remove (history) grows with the correction
 * instead of landing in what must be sent. A scaled estimate is never `exact`.
 */
export function scaleEstimate(estimate: TokenEstimate, factor: number): TokenEstimate {
  if (factor === 1) return estimate;
  const scaled = Object.fromEntries(
    Object.entries(estimate.categories).map(([name, tokens]) => [name, Math.ceil(tokens * factor)]),
  ) as unknown as TokenEstimate['categories'];
  const tokens = Object.values(scaled).reduce((total, value) => total + value, 0);
  return { ...estimate, tokens, confidence: 'estimated', categories: scaled };
}
