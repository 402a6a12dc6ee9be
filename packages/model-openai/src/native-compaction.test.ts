import { ForgeError, sha256Hex, type Message, type ModelRequest, type OpaqueProviderState } from '@forge/core';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { conformanceTuning, drain } from '@forge/loopback-provider/conformance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAIModelFor, TEST_MODEL_ID } from './test-model.test-helpers.js';

const earlier: Message[] = [
  { role: 'user', content: 'Remember: the build command is make ci.' },
  { role: 'assistant', content: [{ type: 'text', text: 'Noted, the build command is make ci.' }] },
];

function requestAfter(state: OpaqueProviderState | undefined, history: readonly Message[] = []): ModelRequest {
  return {
    instructions: 'You are a test agent.',
    checkpoint: 'PORTABLE SUMMARY: the build command is make ci.',
    history,
    currentRequest: { role: 'user', content: 'What is the build command?' },
    continuation: [],
    tools: [],
    ...(state === undefined ? {} : { nativeState: state }),
  };
}

describe('OpenAI native compaction', () => {
  let server: LoopbackProvider;
  beforeEach(async () => {
    server = await startLoopbackProvider();
  });
  afterEach(async () => {
    await server.close();
  });

  async function compacted(
    messages: readonly Message[] = earlier,
    previous?: OpaqueProviderState,
    content = 'opaque-1',
  ): Promise<OpaqueProviderState> {
    server.enqueue({ type: 'compaction', encryptedContent: content });
    return openAIModelFor(server, conformanceTuning).compact(
      { instructions: 'You are a test agent.', messages, ...(previous === undefined ? {} : { previous }) },
      {},
    );
  }

  it('advertises opaque-provider-item', () => {
    expect(openAIModelFor(server, conformanceTuning).capabilities.nativeCompaction).toBe('opaque-provider-item');
  });

  it('compacts through /responses/compact and keeps the output untouched, with its hash and size', async () => {
    const state = await compacted();
    expect(server.requests[0]?.path).toBe('/v1/responses/compact');
    expect(server.requests[0]?.body).toMatchInlineSnapshot(`
      {
        "input": [
          {
            "content": "You are a test agent.",
            "role": "developer",
          },
          {
            "content": [
              {
                "text": "Remember: the build command is make ci.",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
          {
            "content": "Noted, the build command is make ci.",
            "role": "assistant",
          },
        ],
        "model": "gpt-5.1",
      }
    `);
    expect(state).toMatchObject({
      provider: 'openai',
      modelId: TEST_MODEL_ID,
      sourceMessages: 2,
      previousItemHash: null,
    });
    expect(state.items.map((item) => item['type'])).toEqual(['message', 'compaction']);
    expect(state.itemHash).toBe(sha256Hex(JSON.stringify(state.items)));
    expect(state.bytes).toBe(Buffer.byteLength(JSON.stringify(state.items)));
  });

  it('sends the items back byte-identical in place of the checkpoint, and the server accepts them', async () => {
    const state = await compacted();
    server.enqueue(turn({ text: 'make ci' }));
    const { parts, error } = await drain(openAIModelFor(server, conformanceTuning).doStream(requestAfter(state), {}));
    expect(error).toBeUndefined();
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    const sent = server.requests[1]?.rawBody ?? '';
    expect(sent).toContain(JSON.stringify(state.items).slice(1, -1));
    expect(sent).not.toContain('PORTABLE SUMMARY');
    expect(sent).not.toContain('forge_native_state_marker');
  });

  it('does not re-send the messages the item replaces when the caller passes the full history', async () => {
    const state = await compacted();
    const tail: Message[] = [
      { role: 'user', content: 'And the test command?' },
      { role: 'assistant', content: [{ type: 'text', text: 'make test' }] },
    ];
    server.enqueue(turn({ text: 'make ci' }));
    await drain(openAIModelFor(server, conformanceTuning).doStream(requestAfter(state, [...earlier, ...tail]), {}));
    const input = (server.requests[1]?.body as { input: Record<string, unknown>[] } | undefined)?.input ?? [];
    expect(input.map((item) => item['type'] ?? item['role'])).toEqual([
      'developer',
      'message',
      'compaction',
      'user',
      'assistant',
      'user',
    ]);
    expect(server.requests[1]?.rawBody).not.toContain('Noted, the build command is make ci.');
  });

  it('rebuilds from the transcript for another model: no opaque item, the portable checkpoint instead', async () => {
    const state = await compacted();
    server.enqueue(turn({ text: 'make ci' }));
    const other = openAIModelFor(server, conformanceTuning, { modelId: 'gpt-5.1-mini' });
    await drain(other.doStream(requestAfter(state), {}));
    const sent = server.requests[1]?.rawBody ?? '';
    expect(sent).not.toContain('opaque-1');
    expect(sent).toContain('PORTABLE SUMMARY');
  });

  it('never sends state that another provider made', async () => {
    const state = await compacted();
    server.enqueue(turn({ text: 'ok' }));
    await drain(
      openAIModelFor(server, conformanceTuning).doStream(requestAfter({ ...state, provider: 'compatible' }), {}),
    );
    expect(server.requests[1]?.rawBody).not.toContain('opaque-1');
  });

  it('reports a refused replay as a non-retryable provider rejection, sent once', async () => {
    const state = await compacted();
    const fresh = await startLoopbackProvider();
    try {
      const { error } = await drain(openAIModelFor(fresh, conformanceTuning).doStream(requestAfter(state), {}));
      expect(ForgeError.isInstance(error) && error.code).toBe('provider_rejected');
      expect(ForgeError.isInstance(error) && error.isRetryable).toBe(false);
      expect(fresh.requests).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });

  it('chains: the next compaction is made from native history that includes the previous item', async () => {
    const first = await compacted();
    const more: Message[] = [
      { role: 'user', content: 'Also: deploy with make ship.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] },
    ];
    const second = await compacted(more, first, 'opaque-2');
    expect(server.requests[1]?.rawBody).toContain(JSON.stringify(first.items).slice(1, -1));
    expect(server.requests[1]?.rawBody).not.toContain('forge_native_state_marker');
    expect(second.previousItemHash).toBe(first.itemHash);
    expect(second.items.filter((item) => item['type'] === 'compaction')).toEqual([
      { id: 'cmp_2', type: 'compaction', encrypted_content: 'opaque-2' },
    ]);
    expect(second.items.filter((item) => item['role'] === 'user')).toHaveLength(2);
  });

  it('does not chain from another model’s state', async () => {
    const first = await compacted();
    const second = await compacted(earlier, { ...first, modelId: 'gpt-4.1' }, 'opaque-2');
    expect(server.requests[1]?.rawBody).not.toContain('opaque-1');
    expect(second.previousItemHash).toBeNull();
  });

  it('classifies a refused compaction like any model call', async () => {
    server.enqueue({ type: 'http-error', status: 401, message: 'Incorrect API key provided.' });
    const model = openAIModelFor(server, conformanceTuning, { apiKey: undefined, env: { OPENAI_API_KEY: 'test-key' } });
    await expect(model.compact({ instructions: '', messages: earlier }, {})).rejects.toMatchObject({
      code: 'auth',
      variable: 'OPENAI_API_KEY',
    });
  });

  it('estimates a replaying request as sent: opaque bytes instead of the checkpoint and the replaced messages', async () => {
    const state = await compacted();
    const model = openAIModelFor(server, conformanceTuning);
    const portable = await model.estimateRequestTokens(requestAfter(undefined, earlier));
    const replayed = await model.estimateRequestTokens(requestAfter(state, earlier));
    const { checkpoint: _dropped, ...withoutCheckpointRequest } = requestAfter(undefined);
    const withoutCheckpoint = await model.estimateRequestTokens(withoutCheckpointRequest);
    expect(replayed.categories.history).toBe(0);
    expect(replayed.categories.checkpoint).toBe(Math.ceil(state.bytes / 4));
    expect(replayed.tokens).toBe(withoutCheckpoint.tokens + Math.ceil(state.bytes / 4));
    expect(portable.categories.history).toBeGreaterThan(0);
  });
});
