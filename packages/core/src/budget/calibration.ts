import type { TokenEstimate } from '../model/adapter.js';

/** One request: what the estimator said before sending and what the provider reported reading. */
export interface CalibrationSample {
  readonly estimated: number;
  readonly reported: number;
}

/** Estimate-versus-usage statistics of one model's estimator over its recorded requests. */
export interface CalibrationSummary {
  readonly samples: number;
  /** Mean of (estimated − reported) / reported, in percent: positive when estimates run high. */
  readonly meanErrorPercent: number;
  /** The error of the sample furthest from the reported count, in percent (its sign kept). */
  readonly worstErrorPercent: number;
  /** The largest reported / estimated ratio seen: above 1 when the estimator undercounted. */
  readonly worstRatio: number;
  /** Samples whose undercount exceeded the safety buffer. */
  readonly undercountsBeyondBuffer: number;
}

const round1 = (value: number): number => Math.round(value * 10) / 10;

function usable(samples: readonly CalibrationSample[]): CalibrationSample[] {
  return samples.filter((sample) => sample.estimated > 0 && sample.reported > 0);
}

/** Statistics of `samples`; undefined when there is none to learn from. */
export function summarizeCalibration(
  samples: readonly CalibrationSample[],
  bufferTokens: number,
): CalibrationSummary | undefined {
  const valid = usable(samples);
  if (valid.length === 0) return undefined;
  let sum = 0;
  let worst = 0;
  let worstRatio = 0;
  let beyond = 0;
  for (const { estimated, reported } of valid) {
    const error = ((estimated - reported) / reported) * 100;
    sum += error;
    if (Math.abs(error) > Math.abs(worst)) worst = error;
    worstRatio = Math.max(worstRatio, reported / estimated);
    if (reported - estimated > bufferTokens) beyond += 1;
  }
  return {
    samples: valid.length,
    meanErrorPercent: round1(sum / valid.length),
    worstErrorPercent: round1(worst),
    worstRatio: Math.round(worstRatio * 1000) / 1000,
    undercountsBeyondBuffer: beyond,
  };
}

/**
 * The factor automatic budgeting must apply to this estimator's counts: once it has undercounted
 * by more than the safety buffer, its raw estimate is no longer trusted and is scaled by the worst
 * reported/estimated ratio measured. Undefined while the raw estimate is safe.
 */
export function undercountCorrection(summary: CalibrationSummary | undefined): number | undefined {
  if (summary === undefined || summary.undercountsBeyondBuffer === 0 || summary.worstRatio <= 1) return undefined;
  return summary.worstRatio;
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
