import type { PriceSheet, TokenPrices } from '@forge/core';

/*
 * OpenAI's standard-tier prices in US dollars per million tokens, read on 2026-12-01 from stored
 * copies of OpenAI's pricing page (developers.openai.com/api/docs/pricing) and checked against
 * OpenAI's priority-processing page and public price tables quoting it. They were not read from
 * the live page: check them there before relying on them (docs/adapters.md says how to override
 * them). Cached input is a cache hit; these models bill no separate cache write. A model whose
 * cached rate OpenAI does not publish (the pro models) has none here, so its cached tokens are
 * priced as fresh input — an upper bound, never a guess.
 */

const AS_OF = '2026-12-01';
const REFERENCE = 'https://developers.openai.com/api/docs/pricing';

function sheet(
  inputPerMillion: number,
  cachedInputPerMillion: number | undefined,
  outputPerMillion: number,
  extra: Partial<Pick<PriceSheet, 'longContext' | 'note'>> = {},
): PriceSheet {
  const rates: TokenPrices = {
    inputPerMillion,
    ...(cachedInputPerMillion === undefined ? {} : { cachedInputPerMillion }),
    outputPerMillion,
  };
  return Object.freeze({ currency: 'USD', ...rates, source: 'table', asOf: AS_OF, reference: REFERENCE, ...extra });
}

const gpt5 = sheet(1.25, 0.125, 10);
const gpt5Mini = sheet(0.25, 0.025, 2);
const gpt52 = sheet(1.75, 0.175, 14);
const LONG_CONTEXT_TOKENS = 272_000;

/** A model whose whole request, above 272,000 input tokens, bills input (cached too) at 2× and output at 1.5×. */
function longContextSheet(
  inputPerMillion: number,
  cachedInputPerMillion: number,
  outputPerMillion: number,
): PriceSheet {
  return sheet(inputPerMillion, cachedInputPerMillion, outputPerMillion, {
    longContext: {
      aboveInputTokens: LONG_CONTEXT_TOKENS,
      inputPerMillion: inputPerMillion * 2,
      cachedInputPerMillion: cachedInputPerMillion * 2,
      outputPerMillion: outputPerMillion * 1.5,
    },
    note: 'requests with more than 272,000 input tokens bill at the long-context rates',
  });
}

/** gpt-5.4-pro and gpt-5.5-pro: same rates, and OpenAI publishes no long-context rates for them. */
const gpt54Pro = sheet(30, undefined, 180, {
  note: 'long-context rates are not recorded: requests above 272,000 input tokens may cost more',
});

/** Model id → price sheet, for the ids of the capability table. */
export const OPENAI_PRICE_TABLE: Readonly<Record<string, PriceSheet>> = Object.freeze({
  'gpt-5': gpt5,
  'gpt-5-mini': gpt5Mini,
  'gpt-5-nano': sheet(0.05, 0.005, 0.4),
  'gpt-5-codex': gpt5,
  'gpt-5-chat-latest': gpt5,
  'gpt-5-pro': sheet(15, undefined, 120),
  'gpt-5.1': gpt5,
  'gpt-5.1-codex': gpt5,
  'gpt-5.1-codex-mini': gpt5Mini,
  'gpt-5.1-codex-max': gpt5,
  'gpt-5.1-chat-latest': gpt5,
  'gpt-5.2': gpt52,
  'gpt-5.2-codex': gpt52,
  'gpt-5.2-pro': sheet(21, undefined, 168),
  'gpt-5.2-chat-latest': gpt52,
  'gpt-5.3-codex': gpt52,
  'gpt-5.3-chat-latest': gpt52,
  'gpt-5.4': longContextSheet(2.5, 0.25, 15),
  'gpt-5.4-pro': gpt54Pro,
  'gpt-5.4-mini': sheet(0.75, 0.075, 4.5),
  'gpt-5.4-nano': sheet(0.2, 0.02, 1.25),
  'gpt-5.5': longContextSheet(5, 0.5, 30),
  'gpt-5.5-pro': gpt54Pro,
  'gpt-4.1': sheet(2, 0.5, 8),
  'gpt-4.1-mini': sheet(0.4, 0.1, 1.6),
  'gpt-4.1-nano': sheet(0.1, 0.025, 0.4),
  'gpt-4o': sheet(2.5, 1.25, 10),
  'gpt-4o-mini': sheet(0.15, 0.075, 0.6),
  o3: sheet(2, 0.5, 8),
  'o3-mini': sheet(1.1, 0.55, 4.4),
  'o3-pro': sheet(20, undefined, 80),
  'o4-mini': sheet(1.1, 0.275, 4.4),
  'codex-mini-latest': sheet(1.5, 0.375, 6),
});
