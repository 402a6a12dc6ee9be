import { describe, expect, it } from 'vitest';
import { NativeCompactionModel } from '../testing/native-compaction-model.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { wrapModelAdapter } from './wrap-model.js';
import type { ModelRequest, ModelStreamPart } from './adapter.js';

const request: ModelRequest = {
  instructions: 'Be brief.',
  history: [],
  currentRequest: { role: 'user', content: 'Hello.' },
  continuation: [],
  tools: [],
};

async function drain(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('wrapModelAdapter', () => {
  it('is the model itself where the middleware says nothing', async () => {
    const model = new ScriptedModel([{ text: 'Hi.' }]);
    const wrapped = wrapModelAdapter({ model, middleware: {} });
    expect([wrapped.provider, wrapped.modelId, wrapped.capabilities]).toEqual([
      model.provider,
      model.modelId,
      model.capabilities,
    ]);
    expect(await wrapped.estimateRequestTokens(request)).toEqual(await model.estimateRequestTokens(request));
    const parts = await drain(wrapped.doStream(request, { signal: new AbortController().signal }));
    expect(parts.some((part) => part.type === 'text-delta')).toBe(true);
    expect(model.requests).toEqual([request]);
  });

  it('sends and counts the transformed request, and counts through the estimator hook', async () => {
    const model = new ScriptedModel([{ text: 'Hi.' }]);
    const wrapped = wrapModelAdapter({
      model,
      middleware: {
        transformRequest: (sent) => ({ ...sent, checkpoint: '[CHECKPOINT]' }),
        estimateRequestTokens: async (sent, next) => {
          const own = await next(sent);
          return { ...own, tokens: own.tokens * 2 };
        },
      },
    });
    const own = await model.estimateRequestTokens({ ...request, checkpoint: '[CHECKPOINT]' });
    expect((await wrapped.estimateRequestTokens(request)).tokens).toBe(own.tokens * 2);
    await drain(wrapped.doStream(request, { signal: new AbortController().signal }));
    expect(model.requests[0]?.checkpoint).toBe('[CHECKPOINT]');
  });

  it('offers native compaction only when the model has it and the middleware does not hide it', async () => {
    const native = new NativeCompactionModel();
    expect(wrapModelAdapter({ model: native, middleware: {} }).compact).toBeTypeOf('function');
    expect(wrapModelAdapter({ model: native, middleware: { compact: false } }).compact).toBeUndefined();
    expect(
      wrapModelAdapter({ model: new ScriptedModel([]), middleware: { compact: async () => ({}) as never } }).compact,
    ).toBeUndefined();
  });

  it('reads the capabilities of the model when asked, through the capabilities hook', () => {
    const model = new ScriptedModel([]);
    const wrapped = wrapModelAdapter({
      model,
      middleware: { capabilities: (own) => ({ ...own, contextWindowTokens: 1_000 }) },
    });
    expect(wrapped.capabilities.contextWindowTokens).toBe(1_000);
    expect(wrapped.capabilities.maxOutputTokens).toBe(model.capabilities.maxOutputTokens);
  });
});
