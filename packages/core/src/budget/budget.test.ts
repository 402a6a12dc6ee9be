import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TokenCategories, TokenEstimate } from '../model/adapter.js';
import { computeContextBudget } from './budget.js';
import { resolveContextPolicy } from './policy.js';

function estimateOf(categories: Partial<TokenCategories>): TokenEstimate {
  const full: TokenCategories = {
    instructions: 0,
    checkpoint: 0,
    history: 0,
    request: 0,
    continuation: 0,
    toolSchemas: 0,
    overhead: 0,
    ...categories,
  };
  const tokens = Object.values(full).reduce((sum, value) => sum + value, 0);
  return { tokens, method: 'provider-tokenizer', confidence: 'exact', categories: full };
}

const window10k = { contextWindowTokens: 10_000, source: 'table' as const };
const policy = resolveContextPolicy({ reservedOutputTokens: 1000, bufferTokens: 2000, warnAtRatio: 0.5 });

describe('computeContextBudget', () => {
  it('subtracts the larger of output allowance and buffer once, not their sum', () => {
    const budget = computeContextBudget({ capabilities: window10k, estimate: estimateOf({ request: 10 }), policy });
    expect(budget.reservedTokens).toBe(2000);
    expect(budget.availableInputTokens).toBe(8000);
    const bigOutput = computeContextBudget({
      capabilities: window10k,
      estimate: estimateOf({ request: 10 }),
      policy,
      requestedOutputTokens: 3000,
    });
    expect(bigOutput.reservedTokens).toBe(3000);
    expect(bigOutput.availableInputTokens).toBe(7000);
  });

  it('fits when mandatory context is exactly the available input and stops one token over', () => {
    const fits = computeContextBudget({
      capabilities: window10k,
      estimate: estimateOf({ instructions: 4000, request: 3990, overhead: 10 }),
      policy,
    });
    expect(fits.mandatoryTokens).toBe(8000);
    expect(fits.decision).toBe('warn');
    expect(fits.freeTokens).toBe(0);
    const over = computeContextBudget({
      capabilities: window10k,
      estimate: estimateOf({ instructions: 4000, request: 3990, overhead: 11 }),
      policy,
    });
    expect(over.decision).toBe('limit_reached');
    expect(over.remainingHistoryTokens).toBe(-1);
  });

  it('counts tool schemas and in-run continuation as mandatory, history and checkpoint as not', () => {
    const toolHeavy = computeContextBudget({
      capabilities: window10k,
      estimate: estimateOf({ toolSchemas: 7000, continuation: 1001 }),
      policy,
    });
    expect(toolHeavy.decision).toBe('limit_reached');
    const compacting = { ...policy, mode: 'compact' as const };
    const historyHeavy = computeContextBudget({
      capabilities: window10k,
      estimate: estimateOf({ request: 10, history: 7000, checkpoint: 1001 }),
      policy: compacting,
    });
    expect(historyHeavy.decision).toBe('warn');
    expect(historyHeavy.overBudget).toBe(true);
    expect(historyHeavy.remainingHistoryTokens).toBe(8000 - 10 - 1001);
  });

  it('stops a mode that never compacts when the whole request does not fit, and compact mode only when mandatory context does not', () => {
    const estimate = estimateOf({ request: 10, history: 8000 });
    for (const mode of ['off', 'warn', 'shadow'] as const) {
      expect(
        computeContextBudget({ capabilities: window10k, estimate, policy: resolveContextPolicy({ ...policy, mode }) })
          .decision,
      ).toBe('limit_reached');
    }
    expect(
      computeContextBudget({
        capabilities: window10k,
        estimate,
        policy: resolveContextPolicy({ ...policy, mode: 'compact' }),
      }).decision,
    ).toBe('warn');
  });

  it('puts the compaction threshold and target at their share of the available input', () => {
    const budget = computeContextBudget({
      capabilities: window10k,
      estimate: estimateOf({ request: 10 }),
      policy: resolveContextPolicy({ ...policy, compactAtRatio: 0.85, compactTargetRatio: 0.5 }),
    });
    expect(budget.compactAtTokens).toBe(6800);
    expect(budget.compactTargetTokens).toBe(4000);
  });

  it('warns one token past the threshold and not at it', () => {
    const atThreshold = computeContextBudget({
      capabilities: window10k,
      estimate: estimateOf({ request: 100, history: 3900 }),
      policy,
    });
    expect(atThreshold.warnAtTokens).toBe(4000);
    expect(atThreshold.decision).toBe('ok');
    const past = computeContextBudget({
      capabilities: window10k,
      estimate: estimateOf({ request: 100, history: 3901 }),
      policy,
    });
    expect(past.decision).toBe('warn');
    expect(past.overBudget).toBe(false);
  });

  it('applies a provider input cap, keeping the buffer against it', () => {
    const gpt5 = {
      contextWindowTokens: 400_000,
      maxOutputTokens: 128_000,
      maxInputTokens: 272_000,
      source: 'table' as const,
    };
    const budget = computeContextBudget({
      capabilities: gpt5,
      estimate: estimateOf({ request: 10 }),
      policy: resolveContextPolicy(),
    });
    expect(budget.availableInputTokens).toBe(272_000 - 8192);
    expect(budget.maxInputTokens).toBe(272_000);
  });

  it('never asks for more output than the model can produce', () => {
    const small = { contextWindowTokens: 10_000, maxOutputTokens: 500, source: 'config' as const };
    const budget = computeContextBudget({
      capabilities: small,
      estimate: estimateOf({}),
      policy: resolveContextPolicy({ reservedOutputTokens: 4000, bufferTokens: 100 }),
    });
    expect(budget.requestedOutputTokens).toBe(500);
    expect(budget.reservedTokens).toBe(500);
  });

  it('takes no warning decision in mode off but still computes every number, and stops what cannot fit', () => {
    const past = computeContextBudget({
      capabilities: window10k,
      estimate: estimateOf({ request: 7000 }),
      policy: resolveContextPolicy({ ...policy, mode: 'off' }),
    });
    expect(past.decision).toBe('off');
    expect(past.mandatoryTokens).toBe(7000);
    expect(past.freeTokens).toBe(1000);
    const over = computeContextBudget({
      capabilities: window10k,
      estimate: estimateOf({ request: 9000 }),
      policy: resolveContextPolicy({ ...policy, mode: 'off' }),
    });
    expect(over.decision).toBe('limit_reached');
    expect(over.freeTokens).toBe(-1000);
  });

  it('keeps its arithmetic identities for any request and window', () => {
    const count = fc.integer({ min: 0, max: 200_000 });
    fc.assert(
      fc.property(
        fc.record({
          instructions: count,
          checkpoint: count,
          history: count,
          request: count,
          continuation: count,
          toolSchemas: count,
          overhead: count,
        }),
        fc.integer({ min: 1, max: 2_000_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.constantFrom('off' as const, 'warn' as const, 'shadow' as const, 'compact' as const),
        (categories, window, output, buffer, mode) => {
          const estimate = estimateOf(categories);
          const budget = computeContextBudget({
            capabilities: { contextWindowTokens: window, source: 'fallback' },
            estimate,
            policy: resolveContextPolicy({ reservedOutputTokens: output, bufferTokens: buffer, mode }),
          });
          expect(budget.reservedTokens).toBe(Math.max(output, buffer));
          expect(budget.availableInputTokens).toBe(Math.max(0, window - Math.max(output, buffer)));
          expect(budget.remainingHistoryTokens).toBe(
            budget.availableInputTokens - budget.mandatoryTokens - categories.checkpoint,
          );
          expect(budget.freeTokens).toBe(budget.availableInputTokens - estimate.tokens);
          const mustFit = mode === 'compact' ? budget.mandatoryTokens : estimate.tokens;
          expect(budget.decision === 'limit_reached').toBe(mustFit > budget.availableInputTokens);
          expect(budget.compactTargetTokens).toBeLessThan(budget.compactAtTokens + 1);
        },
      ),
    );
  });
});

describe('resolveContextPolicy', () => {
  it('fills defaults and refuses values that cannot be a budget, naming the field', () => {
    expect(resolveContextPolicy()).toMatchObject({
      mode: 'warn',
      reservedOutputTokens: 4096,
      bufferTokens: 8192,
      warnAtRatio: 0.8,
    });
    expect(() => resolveContextPolicy({ bufferTokens: -1 })).toThrow(/context\.bufferTokens/);
    expect(() => resolveContextPolicy({ warnAtRatio: 1.5 })).toThrow(/context\.warnAtRatio/);
    expect(() => resolveContextPolicy({ mode: 'loose' as never })).toThrow(
      /context\.mode must be one of off, warn, shadow, compact/,
    );
    expect(resolveContextPolicy()).toMatchObject({ compactAtRatio: 0.85, compactTargetRatio: 0.5 });
    expect(() => resolveContextPolicy({ compactAtRatio: 0 })).toThrow(/context\.compactAtRatio/);
    expect(() => resolveContextPolicy({ compactAtRatio: 0.4 })).toThrow(
      /compactTargetRatio \(0\.5\) must be below context\.compactAtRatio \(0\.4\)/,
    );
  });
});
