import fc from 'fast-check';
import { get_encoding, type Tiktoken as WasmTiktoken } from 'tiktoken';
import type { ModelRequest } from '@forge/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countO200kTokens,
  createO200kEstimator,
  loadO200kTokenizer,
  OPENAI_FRAMING_OVERHEAD,
  type O200kTokenizer,
} from './o200k-estimator.js';
import { tokenizerCorpus } from './tokenizer-corpus.test-helpers.js';

let reference: WasmTiktoken;
let encoder: O200kTokenizer;

beforeAll(async () => {
  reference = get_encoding('o200k_base');
  encoder = await loadO200kTokenizer();
});

// The WASM encoder holds memory outside the JS heap until freed.
afterAll(() => reference.free());

/** The reference count of ordinary text: no special tokens, nothing refused. */
const referenceCount = (text: string) => reference.encode_ordinary(text).length;

describe('countO200kTokens', () => {
  it.each(Object.entries(tokenizerCorpus).filter(([name]) => !name.startsWith('long')))(
    'matches the WASM tiktoken reference on %s',
    (_name, text) => {
      expect(countO200kTokens(encoder, text)).toBe(referenceCount(text));
    },
  );

  it('counts special-token text as ordinary text instead of throwing', () => {
    const text = 'before <|endoftext|> after';
    expect(countO200kTokens(encoder, text)).toBe(referenceCount(text));
    expect(countO200kTokens(encoder, '<|endoftext|>')).toBe(referenceCount('<|endoftext|>'));
    expect(countO200kTokens(encoder, '<|endoftext|>')).toBeGreaterThan(1);
  });

  it('matches the reference on arbitrary Unicode text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 80 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        (graphemes, binary) => {
          const text = `${graphemes} ${binary}`;
          expect(countO200kTokens(encoder, text)).toBe(referenceCount(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  // Unsliced, each of these runs would take the tokenizer seconds to minutes (its merge is quadratic in one piece).
  it('never comes out below the reference on very long single-class runs, and not far above', () => {
    for (const name of ['longLetterRun', 'longCjkRun', 'longPunctuationRun', 'longSpaceRun'] as const) {
      const text = tokenizerCorpus[name] ?? '';
      const counted = countO200kTokens(encoder, text);
      expect(counted).toBeGreaterThanOrEqual(referenceCount(text));
      expect(counted).toBeLessThanOrEqual(referenceCount(text) + Math.ceil(text.length / 64) * 2);
    }
  });
});

describe('createO200kEstimator', () => {
  const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
    instructions: tokenizerCorpus['prose'] ?? '',
    history: [
      { role: 'user', content: tokenizerCorpus['chinese'] ?? '' },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'call_1',
            toolName: 'edit_file',
            input: JSON.parse(tokenizerCorpus['toolArguments'] ?? '{}'),
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'edit_file',
            output: { type: 'text', value: tokenizerCorpus['typescript'] ?? '' },
          },
        ],
      },
    ],
    currentRequest: { role: 'user', content: tokenizerCorpus['specialTokens'] ?? '' },
    continuation: [],
    tools: [],
    ...overrides,
  });

  it('counts every text exactly and reports the provider tokenizer', async () => {
    const estimate = await createO200kEstimator().estimate(request());
    expect(estimate).toMatchObject({ method: 'provider-tokenizer', confidence: 'exact' });
    expect(estimate.categories.instructions).toBe(referenceCount(tokenizerCorpus['prose'] ?? ''));
    expect(estimate.categories.request).toBe(referenceCount(tokenizerCorpus['specialTokens'] ?? ''));
    const toolCall =
      referenceCount('edit_file') + referenceCount('call_1') + referenceCount(tokenizerCorpus['toolArguments'] ?? '');
    const toolResult =
      referenceCount('edit_file') + referenceCount('call_1') + referenceCount(tokenizerCorpus['typescript'] ?? '');
    expect(estimate.categories.history).toBe(referenceCount(tokenizerCorpus['chinese'] ?? '') + toolCall + toolResult);
    const sum = Object.values(estimate.categories).reduce((total, value) => total + value, 0);
    expect(sum).toBe(estimate.tokens);
    expect(estimate.categories.overhead).toBeGreaterThanOrEqual(OPENAI_FRAMING_OVERHEAD.perRequest ?? 0);
  });

  it('counts each advertised tool schema', async () => {
    const estimator = createO200kEstimator();
    const schema = {
      type: 'object',
      properties: { path: { type: 'string', description: 'Workspace-relative path.' } },
      required: ['path'],
    };
    const tool = {
      name: 'read_file',
      description: 'Read a file and return its content with a SHA-256.',
      inputSchema: schema,
    };
    const without = await estimator.estimate(request());
    const withTool = await estimator.estimate(request({ tools: [tool] }));
    expect(withTool.categories.toolSchemas).toBeGreaterThan(referenceCount(tool.description));
    expect(withTool.tokens - without.tokens).toBe(
      withTool.categories.toolSchemas + (OPENAI_FRAMING_OVERHEAD.perToolDefinition ?? 0),
    );
  });
});
