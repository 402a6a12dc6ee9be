import { OPENAI_PRICE_TABLE } from '@forge/model-openai';
import { describe, expect, it } from 'vitest';
import { priceColumns } from './price-columns.js';

describe('priceColumns', () => {
  it('shows a table model with its rates and their dated source, and an unpriced model as tokens only', () => {
    expect(priceColumns(OPENAI_PRICE_TABLE['gpt-5.1'])).toEqual({
      input: '$1.25',
      cached: '$0.125',
      cacheWrite: '= in',
      output: '$10',
      source: 'capability table, as of 2026-12-01, https://developers.openai.com/api/docs/pricing',
    });
    expect(priceColumns(OPENAI_PRICE_TABLE['gpt-5-pro']).cached).toBe('= in');
    expect(priceColumns(undefined)).toEqual({
      input: '—',
      cached: '—',
      cacheWrite: '—',
      output: '—',
      source: 'no prices (tokens only)',
    });
    expect(
      priceColumns({
        currency: 'USD',
        inputPerMillion: 0,
        outputPerMillion: 0,
        source: 'config',
        reference: '/home/me/.forge/config.json',
      }).source,
    ).toBe('configuration, /home/me/.forge/config.json');
  });
});
