import { resolveContextPolicy, type ContextCapabilities } from '@forge/core';
import { computeContextBudget } from '@forge/core/budget';
import { describe, expect, it } from 'vitest';
import { createOpenAIModel } from './create-openai-model.js';

const base = { apiKey: 'test-key', env: {} };

describe('createOpenAIModel', () => {
  it('builds the adapter with its table entry and the exact o200k estimator', async () => {
    const model = createOpenAIModel({ ...base, modelId: 'gpt-5.1' });
    expect(model.capabilities).toMatchObject({
      contextWindowTokens: 400_000,
      maxInputTokens: 272_000,
      source: 'table',
      estimation: 'provider-tokenizer',
    });
    const estimate = await model.estimateRequestTokens({
      instructions: 'Be brief.',
      history: [],
      currentRequest: { role: 'user', content: 'hello' },
      continuation: [],
      tools: [],
    });
    expect(estimate).toMatchObject({ method: 'provider-tokenizer', confidence: 'exact' });
    expect(estimate.categories.request).toBe(1);
    const budget = computeContextBudget({
      capabilities: model.capabilities as ContextCapabilities,
      estimate,
      policy: resolveContextPolicy(),
    });
    expect(budget.availableInputTokens).toBe(272_000 - 8192);
  });

  it('takes configured limits over the table and labels them config; unknown ids fall back', () => {
    expect(
      createOpenAIModel({ ...base, modelId: 'gpt-5.1', capabilities: { contextWindowTokens: 100_000 } }).capabilities,
    ).toMatchObject({ contextWindowTokens: 100_000, source: 'config' });
    expect(
      createOpenAIModel({ ...base, modelId: 'my-finetune', fallbackContextWindowTokens: 20_000 }).capabilities,
    ).toMatchObject({ contextWindowTokens: 20_000, source: 'fallback' });
  });
});
