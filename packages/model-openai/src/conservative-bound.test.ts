import { countTextConservatively } from '@forge/core';
import { countTokens as countCl100kTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import { countO200kTokens, loadO200kTokenizer, type O200kTokenizer } from './o200k-estimator.js';
import { tokenizerCorpus } from './tokenizer-corpus.test-helpers.js';

/*
 * Core's conservative estimator is meant for models whose tokenizer Forge does not ship. It lives
 * in core, which cannot depend on a tokenizer, so its promise — never below a modern BPE
 * tokenizer — is checked here, where o200k and cl100k are at hand.
 */

let o200k: O200kTokenizer;
const cl100kCount = (text: string) => countCl100kTokens(text, { disallowedSpecial: new Set() });

beforeAll(async () => {
  o200k = await loadO200kTokenizer();
});

const corpus = Object.entries(tokenizerCorpus).filter(([name, text]) => text.length > 0 && !name.startsWith('long'));

describe('countTextConservatively', () => {
  it.each(corpus)('is at least the exact o200k count on %s', (_name, text) => {
    expect(countTextConservatively(text)).toBeGreaterThanOrEqual(countO200kTokens(o200k, text));
  });

  it.each(corpus)('is at least the cl100k count on %s', (_name, text) => {
    expect(countTextConservatively(text)).toBeGreaterThanOrEqual(cl100kCount(text));
  });

  it('errs high on the whole corpus by a bounded factor', () => {
    const all = corpus.map(([, text]) => text).join('\n');
    const ratio = countTextConservatively(all) / countO200kTokens(o200k, all);
    expect(ratio).toBeGreaterThan(1);
    expect(ratio).toBeLessThan(2.5);
  });
});
