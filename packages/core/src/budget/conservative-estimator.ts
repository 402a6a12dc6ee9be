import { countTextConservatively } from './conservative-text.js';
import { createRequestEstimator, type FramingOverhead, type RequestEstimator } from './request-estimator.js';

export { countTextConservatively } from './conservative-text.js';

/**
 * A request estimator for models whose tokenizer Forge does not ship (DeepSeek, local models
 * behind OpenAI-compatible servers). It uses {@link countTextConservatively}, a documented
 * over-estimate, and reports `conservative-fallback` / `estimated`. Framing defaults are the same
 * upper bounds the exact estimators use.
 */
export function createConservativeEstimator(
  options: { readonly overhead?: Partial<FramingOverhead> } = {},
): RequestEstimator {
  return createRequestEstimator({
    countText: countTextConservatively,
    method: 'conservative-fallback',
    confidence: 'estimated',
    ...(options.overhead === undefined ? {} : { overhead: options.overhead }),
  });
}
