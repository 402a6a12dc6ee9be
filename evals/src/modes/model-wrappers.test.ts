import type { Message, ModelAdapter, ModelRequest } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { RecordingModel } from './model-wrappers.js';

/** Counts a message as its JSON length, so the test can say exactly what was counted. */
const inner: ModelAdapter = {
  specificationVersion: 'forge-model-v1',
  provider: 'test',
  modelId: 'test',
  capabilities: {
    contextWindowTokens: 100_000,
    maxOutputTokens: 1000,
    nativeCompaction: 'unsupported',
    continuationProjection: 'adapter-owned',
    estimation: 'conservative-fallback',
    source: 'table',
  },
  estimateRequestTokens: async () => ({
    tokens: 1,
    method: 'conservative-fallback',
    confidence: 'estimated',
    categories: {
      instructions: 0,
      checkpoint: 0,
      history: 1,
      request: 0,
      continuation: 0,
      toolSchemas: 0,
      overhead: 0,
    },
  }),
  countMessageTokens: async (messages) => messages.map((message) => JSON.stringify(message).length),
  async *doStream() {
    yield {
      type: 'finish',
      finishReason: 'stop',
      usage: {
        inputTokens: 1,
        cacheReadTokens: 0,
        cacheWriteTokens: undefined,
        outputTokens: 1,
        reasoningTokens: undefined,
      },
    };
  },
};

const user: Message = { role: 'user', content: 'Read a.ts.' };
const call: Message = {
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: 'r1', toolName: 'read_file', input: { path: 'a.ts' } }],
};
const result = (value: string): Message => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: 'r1', toolName: 'read_file', output: { type: 'text', value } }],
});
const stored = [user, call, result('x'.repeat(3000))];

function request(history: Message[]): ModelRequest {
  return {
    instructions: '',
    history,
    currentRequest: { role: 'user', content: 'Edit a.ts.' },
    continuation: [],
    tools: [],
  };
}

async function send(model: RecordingModel, body: ModelRequest): Promise<void> {
  for await (const _ of model.doStream(body, {})) void _;
}

describe('RecordingModel', () => {
  it('measures the tokens kept verbatim once, on the first request that no longer sends the whole stored history', async () => {
    const model = new RecordingModel(inner, 'agent');
    model.fullHistory = () => stored;
    await send(model, request(stored));
    const projected = result(
      '[tool output projected: read_file succeeded; 3,000 characters, sha256 00; the first 400 follow]\nxxxx',
    );
    await send(model, request([user, call, projected]));
    await send(model, request([user, call, projected]));
    expect(model.requests.map((recorded) => recorded.keptVerbatimTokens)).toEqual([
      undefined,
      JSON.stringify(user).length + JSON.stringify(call).length,
      undefined,
    ]);
  });

  it('does not count a message the stored transcript does not hold, such as a baseline summary', async () => {
    const model = new RecordingModel(inner, 'agent');
    model.fullHistory = () => stored;
    const summary: Message = { role: 'user', content: 'Another agent worked on this task before you.' };
    await send(model, request([summary, user]));
    expect(model.requests[0]?.keptVerbatimTokens).toBe(JSON.stringify(user).length);
  });
});
