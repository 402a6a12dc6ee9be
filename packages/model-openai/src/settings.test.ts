import { AuthError, InvalidInputError } from '@forge/core';
import { startLoopbackProvider, turn } from '@forge/loopback-provider';
import { bareRequest, conformanceTuning, drain } from '@forge/loopback-provider/conformance';
import { describe, expect, it } from 'vitest';
import { OpenAIModel } from './openai-adapter.js';
import { resolveOpenAISettings } from './settings.js';
import { openAIModelFor, testProfile } from './test-model.test-helpers.js';

describe('OpenAI settings', () => {
  it('names the variable when no key is set', () => {
    const attempt = (): unknown => resolveOpenAISettings({ modelId: 'gpt-5.1', env: { OPENAI_API_KEY: '  ' } });
    expect(attempt).toThrow(AuthError);
    expect(attempt).toThrow(/OPENAI_API_KEY is not set/);
  });

  it('reads base URL and key from OPENAI_BASE_URL and OPENAI_API_KEY, options first', () => {
    const env = { OPENAI_BASE_URL: 'http://gateway.local/v1/', OPENAI_API_KEY: 'from-env' };
    expect(resolveOpenAISettings({ modelId: 'gpt-5.1', env })).toMatchObject({
      baseURL: 'http://gateway.local/v1',
      apiKey: 'from-env',
      keyVariable: 'OPENAI_API_KEY',
    });
    expect(
      resolveOpenAISettings({ modelId: 'gpt-5.1', env, baseURL: 'https://proxy.example/v1', apiKey: 'passed' }),
    ).toMatchObject({
      baseURL: 'https://proxy.example/v1',
      apiKey: 'passed',
      keyVariable: undefined,
    });
    expect(resolveOpenAISettings({ modelId: 'gpt-5.1', env: { OPENAI_API_KEY: 'k' } }).baseURL).toBe(
      'https://api.openai.com/v1',
    );
  });

  it('refuses a base URL that is not http(s), naming where to fix it', () => {
    expect(() =>
      resolveOpenAISettings({ modelId: 'gpt-5.1', apiKey: 'k', env: { OPENAI_BASE_URL: 'api.openai.com' } }),
    ).toThrow(InvalidInputError);
  });

  it('says the key was refused on 401, naming the variable, and does not retry', async () => {
    const server = await startLoopbackProvider();
    try {
      server.enqueue({
        type: 'http-error',
        status: 401,
        message: 'Incorrect API key provided.',
        code: 'invalid_api_key',
      });
      const model = new OpenAIModel(
        {
          modelId: 'gpt-5.1',
          env: { OPENAI_API_KEY: 'wrong', OPENAI_BASE_URL: server.baseURL },
          retry: conformanceTuning.retry,
        },
        testProfile,
      );
      const { error } = await drain(model.doStream(bareRequest(), {}));
      expect(AuthError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ variable: 'OPENAI_API_KEY' });
      expect(String((error as Error).message)).toMatch(/refused the key in OPENAI_API_KEY/);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.headers['authorization']).toBe('Bearer wrong');
    } finally {
      await server.close();
    }
  });

  it('sends configured headers and the reasoning options', async () => {
    const server = await startLoopbackProvider();
    try {
      server.enqueue(turn({ text: 'ok' }));
      const model = openAIModelFor(server, conformanceTuning, {
        headers: { 'x-gateway-route': 'team-a' },
        reasoningEffort: 'high',
        reasoningSummary: 'auto',
      });
      await drain(model.doStream(bareRequest(), {}));
      expect(server.requests[0]?.headers['x-gateway-route']).toBe('team-a');
      expect(server.requests[0]?.body).toMatchObject({ reasoning: { effort: 'high', summary: 'auto' }, store: false });
    } finally {
      await server.close();
    }
  });
});
