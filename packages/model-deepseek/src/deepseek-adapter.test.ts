import { AuthError, ForgeError, runAgent, type Message } from '@forge/core';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import {
  allowAll,
  conformanceTuning,
  drain,
  INSTRUCTIONS,
  noteTool,
  bareRequest,
} from '@forge/loopback-provider/conformance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveDeepSeekSettings } from './settings.js';
import { deepSeekModelFor, deepSeekServerOptions } from './test-model.test-helpers.js';

describe('DeepSeek adapter', () => {
  let server: LoopbackProvider;
  beforeEach(async () => {
    server = await startLoopbackProvider(deepSeekServerOptions);
  });
  afterEach(async () => {
    await server.close();
  });

  async function toolTurnHistory(): Promise<Message[]> {
    server.enqueue(
      turn({
        reasoning: 'The note will know.',
        toolCalls: [{ name: 'read_note', arguments: { name: 'alpha' }, callId: 'call_a' }],
      }),
      turn({ text: 'It is green.' }),
    );
    const first = await runAgent({
      model: deepSeekModelFor(server, conformanceTuning),
      request: 'What colour is the sky?',
      instructions: INSTRUCTIONS,
      tools: [noteTool()],
      approvals: allowAll,
    });
    expect(first.status).toBe('completed');
    return [...first.messages];
  }

  it('keeps reasoning_content in history and passes it back on the next run, as thinking mode requires', async () => {
    const history = await toolTurnHistory();
    server.enqueue(turn({ text: 'Still green.' }));
    const second = await runAgent({
      model: deepSeekModelFor(server, conformanceTuning),
      request: 'And now?',
      session: { history: { messages: history } },
      instructions: INSTRUCTIONS,
      tools: [noteTool()],
      approvals: allowAll,
    });
    expect(second.status).toBe('completed');
    const messages = (server.requests[2]?.body as { messages: Record<string, unknown>[] } | undefined)?.messages ?? [];
    expect(messages.find((message) => Array.isArray(message['tool_calls']))?.['reasoning_content']).toBe(
      'The note will know.',
    );
  });

  it('is refused by the server when reasoning is not passed back (the rule the test server enforces is real)', async () => {
    const history = (await toolTurnHistory()).map((message): Message =>
      message.role === 'assistant'
        ? { role: 'assistant', content: message.content.filter((part) => part.type !== 'reasoning') }
        : message,
    );
    const { error } = await drain(
      deepSeekModelFor(server, conformanceTuning).doStream({ ...bareRequest('And now?'), history }, {}),
    );
    expect(ForgeError.isInstance(error) && error.code).toBe('provider_rejected');
    expect(String((error as Error).message)).toContain('reasoning_content');
  });

  it('maps cache hits to cache-read tokens', async () => {
    server.enqueue(turn({ text: 'ok', usage: { inputTokens: 5000, cachedInputTokens: 4096, outputTokens: 20 } }));
    const { parts } = await drain(deepSeekModelFor(server, conformanceTuning).doStream(bareRequest(), {}));
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      usage: { inputTokens: 5000, cacheReadTokens: 4096, outputTokens: 20 },
    });
  });

  it('sends thinking and reasoning effort when configured', async () => {
    server.enqueue(turn({ text: 'ok' }));
    await drain(
      deepSeekModelFor(server, conformanceTuning, { thinking: 'enabled', reasoningEffort: 'max' }).doStream(
        bareRequest(),
        {},
      ),
    );
    expect(server.requests[0]?.body).toMatchObject({ thinking: { type: 'enabled' }, reasoning_effort: 'max' });
  });
});

describe('DeepSeek settings', () => {
  it('names DEEPSEEK_API_KEY when no key is set, and reads DEEPSEEK_BASE_URL', () => {
    expect(() => resolveDeepSeekSettings({ modelId: 'deepseek-v4-pro', env: {} })).toThrow(AuthError);
    expect(() => resolveDeepSeekSettings({ modelId: 'deepseek-v4-pro', env: {} })).toThrow(
      /DEEPSEEK_API_KEY is not set/,
    );
    expect(
      resolveDeepSeekSettings({
        modelId: 'deepseek-v4-pro',
        env: { DEEPSEEK_API_KEY: 'k', DEEPSEEK_BASE_URL: 'http://proxy.local/' },
      }),
    ).toMatchObject({
      baseURL: 'http://proxy.local',
      keyVariable: 'DEEPSEEK_API_KEY',
    });
    expect(resolveDeepSeekSettings({ modelId: 'deepseek-v4-pro', env: { DEEPSEEK_API_KEY: 'k' } }).baseURL).toBe(
      'https://api.deepseek.com',
    );
  });
});
