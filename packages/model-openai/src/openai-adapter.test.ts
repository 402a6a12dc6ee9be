import type { Message } from '@forge/core';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { bareRequest, conformanceTuning, drain } from '@forge/loopback-provider/conformance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAIModelFor } from './test-model.test-helpers.js';

describe('OpenAI adapter', () => {
  let server: LoopbackProvider;
  beforeEach(async () => {
    server = await startLoopbackProvider();
  });
  afterEach(async () => {
    await server.close();
  });

  it('maps every usage field, cache writes included', async () => {
    server.enqueue(
      turn({
        text: 'ok',
        usage: {
          inputTokens: 3000,
          cachedInputTokens: 1024,
          cacheWriteTokens: 1500,
          outputTokens: 200,
          reasoningTokens: 150,
        },
      }),
    );
    const { parts } = await drain(openAIModelFor(server, conformanceTuning).doStream(bareRequest(), {}));
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: {
        inputTokens: 3000,
        cacheReadTokens: 1024,
        cacheWriteTokens: 1500,
        outputTokens: 200,
        reasoningTokens: 150,
      },
    });
  });

  it('yields reasoning with its encrypted content and its origin, then the text', async () => {
    server.enqueue(turn({ reasoning: ['Let me ', 'think.'], encryptedReasoning: 'enc-abc', text: 'Done.' }));
    const { parts } = await drain(openAIModelFor(server, conformanceTuning).doStream(bareRequest(), {}));
    expect(parts.slice(0, 2)).toEqual([
      {
        type: 'reasoning',
        part: {
          type: 'reasoning',
          text: 'Let me think.',
          providerMetadata: {
            openai: { itemId: 'rs_1_0', reasoningEncryptedContent: 'enc-abc' },
            forge: { provider: 'openai', modelId: 'gpt-5.1' },
          },
        },
      },
      { type: 'text-delta', delta: 'Done.' },
    ]);
  });

  it('sends reasoning back only to the model that produced it', async () => {
    const history: Message[] = [
      { role: 'user', content: 'earlier question' },
      {
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: 'mine',
            providerMetadata: {
              openai: { itemId: 'rs_a', reasoningEncryptedContent: 'enc-mine' },
              forge: { provider: 'openai', modelId: 'gpt-5.1' },
            },
          },
          {
            type: 'reasoning',
            text: 'other',
            providerMetadata: {
              openai: { itemId: 'rs_b', reasoningEncryptedContent: 'enc-other' },
              forge: { provider: 'openai', modelId: 'o4-mini' },
            },
          },
          { type: 'text', text: 'earlier answer' },
        ],
      },
    ];
    server.enqueue(turn({ text: 'ok' }));
    await drain(openAIModelFor(server, conformanceTuning).doStream({ ...bareRequest(), history }, {}));
    const sent = server.requests[0]?.rawBody ?? '';
    expect(sent).toContain('enc-mine');
    expect(sent).not.toContain('enc-other');
  });

  it('maps an incomplete response to the length finish reason', async () => {
    server.enqueue(turn({ text: 'cut short', incompleteReason: 'max_output_tokens' }));
    const { parts } = await drain(
      openAIModelFor(server, conformanceTuning).doStream({ ...bareRequest(), maxOutputTokens: 5 }, {}),
    );
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'length' });
    expect(server.requests[0]?.body).toMatchObject({ max_output_tokens: 5 });
  });
});
