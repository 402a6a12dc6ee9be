import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli-error.js';
import { parseModelIdentifier, resolveModel } from './resolve-model.js';

describe('parseModelIdentifier', () => {
  it('splits at the first colon, so model ids may contain colons', () => {
    expect(parseModelIdentifier('compatible:qwen2.5-coder:7b')).toEqual({
      provider: 'compatible',
      modelId: 'qwen2.5-coder:7b',
    });
  });

  it('round-trips any provider without a colon and any non-empty model id', () => {
    const provider = fc.string({ minLength: 1 }).filter((text) => !text.includes(':'));
    fc.assert(
      fc.property(provider, fc.string({ minLength: 1 }), (name, model) => {
        expect(parseModelIdentifier(`${name}:${model}`)).toEqual({ provider: name, modelId: model });
      }),
    );
  });

  it('rejects every value without both parts as a usage error', () => {
    const malformed = fc.oneof(
      fc.string().filter((text) => !text.includes(':')),
      fc.string().map((text) => `:${text}`),
      fc
        .string()
        .filter((text) => !text.includes(':'))
        .map((text) => `${text}:`),
    );
    fc.assert(
      fc.property(malformed, (value) => {
        expect(() => parseModelIdentifier(value)).toThrow(UsageError);
      }),
    );
  });
});

describe('resolveModel', () => {
  it('creates scripted:demo', async () => {
    const model = await resolveModel('scripted:demo', { env: {} });
    expect([model.provider, model.modelId, model.specificationVersion]).toEqual(['scripted', 'demo', 'forge-model-v1']);
  });

  it('treats an empty API key like a missing one', async () => {
    await expect(resolveModel('deepseek:deepseek-chat', { env: { DEEPSEEK_API_KEY: '' } })).rejects.toThrow(
      'DEEPSEEK_API_KEY is not set',
    );
  });

  it('lets an injected provider take a name before the built-ins', async () => {
    const model = await resolveModel('scripted:demo', { env: {} });
    const chosen = await resolveModel('scripted:anything', {
      env: {},
      extraProviders: [{ name: 'scripted', create: async () => model }],
    });
    expect(chosen).toBe(model);
  });
});
