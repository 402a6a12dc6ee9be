import type { ModelRequest } from '@forge/core';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { conformanceTuning, reconciledRun } from '@forge/loopback-provider/conformance';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEEPSEEK_CAPABILITIES } from './capabilities.js';
import { createDeepSeekModel } from './create-deepseek-model.js';
import { deepSeekPromptCounter } from './deepseek-reference-template.test-helpers.js';
import { DEEPSEEK_V3_TOKENIZER } from './capabilities.js';
import { createDeepSeekEstimator, loadDeepSeekV3Tokenizer } from './deepseek-tokenizer.js';
import type { TextTokenizer } from '@forge/ai-sdk-bridge';

let tokenizer: TextTokenizer;
beforeAll(async () => {
  tokenizer = await loadDeepSeekV3Tokenizer();
}, 60_000);

describe('DeepSeek-V3 tokenizer', () => {
  it('is the published V3 vocabulary: chat markers are single tokens and text splits as DeepSeek splits it', () => {
    expect(tokenizer.name).toBe(DEEPSEEK_V3_TOKENIZER);
    expect(tokenizer.count('<｜User｜>')).toBe(1);
    expect(tokenizer.count('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>')).toBe(2);
    expect(tokenizer.count('Hello, world!')).toBe(4);
    // Digits are split in groups of at most three; CJK runs are pre-tokenized apart.
    expect(tokenizer.count('1234567')).toBe(3);
    expect(tokenizer.count('上下文管理')).toBeGreaterThan(1);
  });

  it('counts a long run of one character quickly and never below the exact count', () => {
    const run = 'a'.repeat(4_000);
    const started = performance.now();
    const counted = tokenizer.count(run.repeat(50));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(counted).toBeGreaterThanOrEqual(tokenizer.count('a'.repeat(127)) * Math.floor(200_000 / 127));
  });
});

describe('DeepSeek estimator', () => {
  it('is exact and from the provider tokenizer, and the capabilities say so', async () => {
    const request: ModelRequest = {
      instructions: 'Be brief.',
      history: [],
      currentRequest: { role: 'user', content: '上下文' },
      continuation: [],
      tools: [],
    };
    const estimate = await createDeepSeekEstimator().estimate(request);
    expect(estimate).toMatchObject({ method: 'provider-tokenizer', confidence: 'exact' });
    // <｜begin▁of▁sentence｜> Be brief. <｜User｜> 上下文 <｜Assistant｜>
    expect(estimate.tokens).toBe(1 + tokenizer.count('Be brief.') + 1 + tokenizer.count('上下文') + 1);
    expect(estimate.categories).toMatchObject({
      instructions: tokenizer.count('Be brief.'),
      request: tokenizer.count('上下文'),
      overhead: 3,
    });
    expect(DEEPSEEK_CAPABILITIES.capabilities('deepseek-chat').estimation).toBe('provider-tokenizer');
  });
});

describe('DeepSeek estimate against a server that counts with the same tokenizer', () => {
  let server: LoopbackProvider;
  beforeEach(async () => {
    server = await startLoopbackProvider({
      chatUsageStyle: 'deepseek',
      countPromptTokens: deepSeekPromptCounter(tokenizer),
    });
  });
  afterEach(async () => {
    await server.close();
  });

  it('matches the reported prompt tokens exactly on every step of a run with two parallel tool calls, their results and earlier history', async () => {
    server.enqueue(
      turn({
        toolCalls: [
          { name: 'read_note', arguments: { name: 'alpha' } },
          { name: 'read_note', arguments: { name: 'beta' } },
        ],
      }),
      turn({
        text: 'Alpha says the sky is green; reading gamma.',
        toolCalls: [{ name: 'read_note', arguments: { name: 'gamma' } }],
      }),
      turn({ text: 'All three notes agree: 緑 (green).' }),
    );
    const model = createDeepSeekModel({
      modelId: 'deepseek-chat',
      baseURL: server.baseURL,
      apiKey: 'test-key',
      env: {},
      thinking: 'disabled',
      retry: conformanceTuning.retry,
    });
    const { result, reconciled } = await reconciledRun(model, {
      request: 'What colour is the sky in notes alpha, beta and gamma? Answer in one line.',
      history: [
        { role: 'user', content: 'Earlier question about 上下文 (context).' },
        { role: 'assistant', content: [{ type: 'text', text: 'Earlier answer, with code: `const x = 1;`' }] },
      ],
    });
    expect(result.status).toBe('completed');
    expect(reconciled).toHaveLength(3);
    for (const step of reconciled)
      expect(
        step.errorTokens,
        `step ${step.step}: estimated ${step.estimatedTokens}, reported ${step.reportedInputTokens}`,
      ).toBe(0);
  });
});
