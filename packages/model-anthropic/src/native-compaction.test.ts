import { ForgeError, sha256Hex, type Message, type ModelRequest, type OpaqueProviderState } from '@forge/core';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { conformanceTuning, drain } from '@forge/loopback-provider/conformance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicModelFor, TEST_MODEL_ID } from './test-model.test-helpers.js';

/* Anthropic's server compaction through the AI SDK's `compaction` option, against the loopback Messages API. */

type Block = Record<string, unknown>;
type Body = { compaction?: unknown; messages: { role: string; content: Block[] }[] };

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

describe('Anthropic native compaction', () => {
  let server: LoopbackProvider;
  beforeEach(async () => {
    server = await startLoopbackProvider();
  });
  afterEach(async () => {
    await server.close();
  });

  async function compacted(
    previous?: OpaqueProviderState,
    signature = 'sig-compaction-1',
  ): Promise<OpaqueProviderState> {
    server.enqueue({ type: 'compaction', encryptedContent: signature, summary: 'The build command is make ci.' });
    return anthropicModelFor(server, conformanceTuning).compact(
      { instructions: 'You are a test agent.', messages: earlier, ...(previous === undefined ? {} : { previous }) },
      {},
    );
  }

  it('is offered only by models Anthropic compacts for', () => {
    expect(anthropicModelFor(server, conformanceTuning).capabilities.nativeCompaction).toBe('opaque-provider-item');
    const older = anthropicModelFor(server, conformanceTuning, { modelId: 'claude-sonnet-4-5' });
    expect(older.capabilities.nativeCompaction).toBe('unsupported');
  });

  it('asks for a compaction and keeps the block as returned, with its hash and what it covers', async () => {
    const state = await compacted();
    const body = server.requests[0]?.body as Body;
    expect(server.requests[0]?.path).toBe('/v1/messages');
    expect(body.compaction).toEqual({ type: 'summarize' });
    expect(server.requests[0]?.headers['anthropic-beta']).toContain('compact-2026-09-04');
    expect(body.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    const items = [{ type: 'compaction', content: 'The build command is make ci.', signature: 'sig-compaction-1' }];
    expect(state).toEqual({
      provider: 'anthropic',
      modelId: TEST_MODEL_ID,
      itemHash: sha256Hex(JSON.stringify(items)),
      bytes: Buffer.byteLength(JSON.stringify(items)),
      items,
      sourceHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      sourceMessages: 2,
      previousItemHash: null,
    });
  });

  it('replays the block in place of the checkpoint and the messages it replaced, to the same model only', async () => {
    const state = await compacted();
    server.enqueue(turn({ text: 'make ci' }), turn({ text: 'make ci, I think' }));
    const replayed = await drain(
      anthropicModelFor(server, conformanceTuning).doStream(requestAfter(state, earlier), {}),
    );
    expect(replayed.error).toBeUndefined();
    const body = server.requests[1]?.body as Body;
    expect(body.messages[0]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'compaction',
          content: 'The build command is make ci.',
          signature: 'sig-compaction-1',
          cache_control: { type: 'ephemeral', ttl: '5m' },
        },
      ],
    });
    expect(server.requests[1]?.rawBody).not.toContain('PORTABLE SUMMARY');
    expect(server.requests[1]?.rawBody).not.toContain('Noted, the build command');

    // Another model gets Forge's own checkpoint and the whole history instead.
    await drain(
      anthropicModelFor(server, conformanceTuning, { modelId: 'claude-opus-4-6' }).doStream(
        requestAfter(state, earlier),
        {},
      ),
    );
    expect(server.requests[2]?.rawBody).toContain('PORTABLE SUMMARY');
    expect(server.requests[2]?.rawBody).not.toContain('sig-compaction-1');
  });

  it('counts the replayed block as checkpoint in the estimate, without the replaced messages', async () => {
    const state = await compacted();
    const model = anthropicModelFor(server, conformanceTuning);
    const plain = await model.estimateRequestTokens(requestAfter(undefined, earlier));
    const native = await model.estimateRequestTokens(requestAfter(state, earlier));
    expect(native.categories.history).toBe(0);
    expect(native.categories.checkpoint).toBeGreaterThan(0);
    expect(native.tokens).toBeLessThan(plain.tokens);
  });

  it('chains from the previous state, and the server refuses a block it never issued', async () => {
    const first = await compacted();
    const second = await compacted(first, 'sig-compaction-2');
    expect(second.previousItemHash).toBe(first.itemHash);
    const chained = server.requests[1]?.body as Body | undefined;
    expect(chained?.messages[0]?.content[0]).toMatchObject({ signature: 'sig-compaction-1' });

    const forged: OpaqueProviderState = {
      ...first,
      items: [{ type: 'compaction', content: 'forged', signature: 'not-issued' }],
    };
    const { error } = await drain(
      anthropicModelFor(server, conformanceTuning).doStream(requestAfter(forged, earlier), {}),
    );
    expect(ForgeError.isInstance(error) && error.code).toBe('provider_rejected');
    expect(String((error as Error).message)).toContain('Invalid `signature` in `compaction` block');
  });

  it('refuses to compact on a model without server compaction, and an answer without a block', async () => {
    const older = anthropicModelFor(server, conformanceTuning, { modelId: 'claude-sonnet-4-5' });
    await expect(older.compact({ instructions: '', messages: earlier }, {})).rejects.toThrow(
      /offers no server compaction/,
    );
    expect(server.requests).toHaveLength(0);
  });
});
