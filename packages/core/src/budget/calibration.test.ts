import { describe, expect, it } from 'vitest';
import {
  implausibleSampleReason,
  overcountCorrection,
  scaleEstimate,
  summarizeCalibration,
  undercountCorrection,
} from './calibration.js';
import type { TokenEstimate } from '../model/adapter.js';

const estimate: TokenEstimate = {
  tokens: 1000,
  method: 'provider-tokenizer',
  confidence: 'exact',
  categories: {
    instructions: 100,
    checkpoint: 0,
    history: 700,
    request: 50,
    continuation: 0,
    toolSchemas: 100,
    overhead: 50,
  },
};
const sum = (value: TokenEstimate) => Object.values(value.categories).reduce((total, tokens) => total + tokens, 0);

describe('calibration', () => {
  it('summarizes mean and worst error and the worst reported/estimated ratio', () => {
    const summary = summarizeCalibration(
      [
        { estimated: 120, reported: 100 },
        { estimated: 90, reported: 100 },
        { estimated: 0, reported: 5 },
      ],
      5,
    );
    expect(summary).toEqual({
      samples: 2,
      ignoredSamples: 1,
      meanErrorPercent: 5,
      worstErrorPercent: 20,
      worstRatio: 1.111,
      correctionRatio: 1.111,
      undercountsBeyondBuffer: 1,
    });
    expect(summarizeCalibration([], 0)).toBeUndefined();
  });

  it('corrects only an estimator that undercounted by more than the buffer, by its worst ratio', () => {
    expect(undercountCorrection(summarizeCalibration([{ estimated: 9_000, reported: 10_000 }], 8_192))).toBeUndefined();
    expect(
      undercountCorrection(
        summarizeCalibration(
          [
            { estimated: 90_000, reported: 100_000 },
            { estimated: 50_000, reported: 60_000 },
          ],
          8_192,
        ),
      ),
    ).toBe(1.2);
  });

  it('never learns from an impossible report: a negative or zero count, one above the window, a ratio beyond 4', () => {
    expect(implausibleSampleReason({ estimated: 1000, reported: -5 })).toContain('not a positive count');
    expect(implausibleSampleReason({ estimated: 1000, reported: 1e15 })).toContain('of the estimate');
    expect(implausibleSampleReason({ estimated: 1000, reported: 300_000 }, 128_000)).toContain('128,000-token window');
    expect(implausibleSampleReason({ estimated: 1000, reported: 1_500 }, 128_000)).toBeUndefined();
    const poisoned = summarizeCalibration(
      [
        { estimated: 1000, reported: 1e15 },
        { estimated: 1000, reported: -7 },
        { estimated: 1000, reported: 990 },
      ],
      0,
    );
    expect(poisoned).toMatchObject({ samples: 1, ignoredSamples: 2, worstRatio: 0.99 });
    expect(undercountCorrection(poisoned)).toBeUndefined();
  });

  it('corrects by the 90th-percentile ratio, so one stray report among many does not decide it, and caps an exact tokenizer', () => {
    const steady = Array.from({ length: 19 }, () => ({ estimated: 50_000, reported: 55_000 }));
    const summary = summarizeCalibration([...steady, { estimated: 50_000, reported: 190_000 }], 1_000);
    expect(summary?.worstRatio).toBe(3.8);
    expect(undercountCorrection(summary)).toBe(1.1);
    const stray = summarizeCalibration([{ estimated: 50_000, reported: 190_000 }], 1_000);
    expect(undercountCorrection(stray)).toBe(3.8);
    expect(undercountCorrection(stray, 'exact')).toBe(1.25);
  });

  it('offers a correction only for a consistent overcount over enough samples', () => {
    const high = Array.from({ length: 5 }, (_, index) => ({ estimated: 130 + index, reported: 100 }));
    expect(overcountCorrection(summarizeCalibration(high, 0))).toBe(0.77);
    expect(overcountCorrection(summarizeCalibration(high.slice(0, 4), 0))).toBeUndefined();
    expect(overcountCorrection(summarizeCalibration([...high, { estimated: 99, reported: 100 }], 0))).toBeUndefined();
  });

  it('scales an estimate up and down across every category (history grows with the correction, not what must be sent), the categories still summing to the total', () => {
    const up = scaleEstimate(estimate, 1.2);
    expect(up).toMatchObject({
      tokens: 1200,
      confidence: 'estimated',
      method: 'provider-tokenizer',
      categories: { overhead: 60, history: 840 },
    });
    expect(sum(up)).toBe(up.tokens);
    const down = scaleEstimate(estimate, 0.77);
    expect(down.categories.history).toBe(539);
    expect(sum(down)).toBe(down.tokens);
    expect(scaleEstimate(estimate, 1)).toBe(estimate);
  });
});
