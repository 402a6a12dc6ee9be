import { AuthError, ContextOverflowError } from '@forge/core';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { bareRequest, conformanceTuning, drain } from '@forge/loopback-provider/conformance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compatibleModelConfigSchema } from './settings.js';
import { compatibleModelFor } from './test-model.test-helpers.js';

describe('OpenAI-compatible adapter', () => {
  let server: LoopbackProvider;
  beforeEach(async () => {
    server = await startLoopbackProvider();
  });
  afterEach(async () => {
    await server.close();
  });

  it('works without any key when the configuration names none (a local server)', async () => {
    server.enqueue(turn({ text: 'hi' }));
    const model = compatibleModelFor(server, conformanceTuning, { apiKeyVariable: undefined, env: {} });
    const { error } = await drain(model.doStream(bareRequest(), {}));
    expect(error).toBeUndefined();
    expect(server.requests[0]?.headers['authorization']).toBeUndefined();
  });

  it('names the configured key variable when it is not set', () => {
    expect(() => compatibleModelFor(server, conformanceTuning, { env: {} })).toThrow(AuthError);
    expect(() => compatibleModelFor(server, conformanceTuning, { env: {} })).toThrow(/LOCAL_LLM_KEY is not set/);
  });

  it('recognises a local server’s overflow wording (llama.cpp)', async () => {
    server.enqueue({
      type: 'http-error',
      status: 400,
      message: 'the request exceeds the available context size, try increasing it',
    });
    const { error } = await drain(compatibleModelFor(server, conformanceTuning).doStream(bareRequest(), {}));
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toContain('the OpenAI-compatible server "local"');
  });

  it('takes its limits from configuration, marked as configured', () => {
    expect(compatibleModelFor(server, conformanceTuning).capabilities).toMatchObject({
      contextWindowTokens: 32_768,
      source: 'config',
      nativeCompaction: 'unsupported',
    });
  });
});

describe('compatible model configuration', () => {
  it('accepts a vendor as data and rejects entries that cannot work', () => {
    const ollama = {
      name: 'ollama',
      baseURL: 'http://127.0.0.1:11434/v1',
      modelId: 'qwen2.5-coder:7b',
      contextWindowTokens: 32768,
    };
    expect(compatibleModelConfigSchema.parse(ollama)).toEqual(ollama);
    expect(compatibleModelConfigSchema.safeParse({ ...ollama, contextWindowTokens: 0 }).success).toBe(false);
    expect(compatibleModelConfigSchema.safeParse({ ...ollama, baseURL: 'not a url' }).success).toBe(false);
    expect(compatibleModelConfigSchema.safeParse({ ...ollama, apiKeyVariable: 'bad-name' }).success).toBe(false);
    expect(compatibleModelConfigSchema.safeParse({ ...ollama, extra: true }).success).toBe(false);
  });
});
