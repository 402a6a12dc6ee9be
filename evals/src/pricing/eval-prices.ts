import { readFile } from 'node:fs/promises';
import { InvalidInputError, type PriceSheet, type PromptCacheRules } from '@forge/core';
import { checkPriceSheet, OPENAI_PROMPT_CACHE } from '@forge/core/pricing';
import { ANTHROPIC_PRICE_TABLE, anthropicPromptCache } from '@forge/model-anthropic';
import { DEEPSEEK_PRICE_TABLE, DEEPSEEK_PROMPT_CACHE } from '@forge/model-deepseek';
import { OPENAI_PRICE_TABLE } from '@forge/model-openai';
import { z } from 'zod';

/** The prices an eval run charges its simulated provider's usage at, and how that provider caches. */
export interface EvalPriceSheet {
  /** `openai`, `deepseek`, `anthropic`, or the file's `name` (its path when it has none). */
  readonly name: string;
  /** Which model's table it is, or the file it came from. */
  readonly description: string;
  readonly prices: PriceSheet;
  readonly promptCache: PromptCacheRules;
}

const BUILT_IN_PRICE_SHEETS = ['openai', 'deepseek', 'anthropic'] as const;

/** The Claude model the `anthropic` sheet prices: the one coding agents most often run on. */
const ANTHROPIC_EVAL_MODEL = 'claude-sonnet-4-6';

function tableSheet(table: Readonly<Record<string, PriceSheet>>, model: string): PriceSheet {
  const sheet = table[model];
  if (sheet === undefined) throw new Error(`the capability table has no prices for ${model}`);
  return sheet;
}

/**
 * `openai`: gpt-5.1's table prices with OpenAI's documented prompt caching (1,024 tokens, steps of
 * 128, five minutes). `deepseek`: deepseek-flash's table prices with DeepSeek's cache as Forge
 * approximates it (64-token units, one hour). `anthropic`: claude-sonnet-4-6's table prices, cache
 * writes at the 5-minute premium (1.25× input), with Anthropic's cache as the adapter's breakpoints
 * earn it (a 2,048-token minimum, exact tokens, five minutes).
 */
function builtInPriceSheet(name: (typeof BUILT_IN_PRICE_SHEETS)[number]): EvalPriceSheet {
  if (name === 'anthropic') {
    return {
      name,
      description: `anthropic:${ANTHROPIC_EVAL_MODEL} capability table (5m cache writes), Anthropic prompt cache at the adapter's breakpoints`,
      prices: tableSheet(ANTHROPIC_PRICE_TABLE, ANTHROPIC_EVAL_MODEL),
      promptCache: anthropicPromptCache(ANTHROPIC_EVAL_MODEL, '5m'),
    };
  }
  if (name === 'deepseek') {
    return {
      name,
      description: 'deepseek:deepseek-flash capability table, DeepSeek prompt cache (approximate)',
      prices: tableSheet(DEEPSEEK_PRICE_TABLE, 'deepseek-flash'),
      promptCache: DEEPSEEK_PROMPT_CACHE,
    };
  }
  return {
    name,
    description: 'openai:gpt-5.1 capability table, OpenAI prompt cache',
    prices: tableSheet(OPENAI_PRICE_TABLE, 'gpt-5.1'),
    promptCache: OPENAI_PROMPT_CACHE,
  };
}

export const DEFAULT_PRICE_SHEET = builtInPriceSheet('openai');

const rate = z.number({ error: 'must be a number of US dollars per million tokens' }).finite().min(0, 'must be ≥ 0');

/** A price file: US dollars per million tokens; `cached` and `write` may be left out (they then cost what fresh input costs). */
const priceFileSchema = z.strictObject({
  name: z.string().min(1).optional(),
  input: rate,
  cached: rate.optional(),
  write: rate.optional(),
  output: rate,
});

/**
 * The sheet `--prices` names: `openai`, `deepseek`, `anthropic`, or a JSON file of `input`, `cached`, `write`
 * and `output` per million tokens (cached with OpenAI's prompt-cache rules). Throws an
 * `InvalidInputError` naming the file and the field when it cannot be used.
 */
export async function loadEvalPrices(
  spec: string,
  resolvePath: (file: string) => string = (file) => file,
): Promise<EvalPriceSheet> {
  const known = BUILT_IN_PRICE_SHEETS.find((name) => name === spec);
  if (known !== undefined) return builtInPriceSheet(known);
  const file = resolvePath(spec);
  // Every error names the flag as the user gave it and the file it resolved to.
  const where = `--prices ${spec}: the file ${file}`;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new InvalidInputError({
      message: `--prices ${spec}: not ${BUILT_IN_PRICE_SHEETS.join(' or ')}, and the file ${file} cannot be read (${reason}). Name a built-in sheet or a JSON file like {"input": 1.25, "cached": 0.125, "output": 10}.`,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError({ message: `${where} is not JSON: ${(error as Error).message}.` });
  }
  const parsed = priceFileSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`)
      .join('; ');
    throw new InvalidInputError({
      message: `${where} is not a valid price sheet: ${issues}. Give input, output and optionally cached and write, in US dollars per million tokens (docs/evals.md).`,
    });
  }
  const { name, input, cached, write, output } = parsed.data;
  const prices = checkPriceSheet(
    {
      currency: 'USD',
      inputPerMillion: input,
      ...(cached === undefined ? {} : { cachedInputPerMillion: cached }),
      ...(write === undefined ? {} : { cacheWritePerMillion: write }),
      outputPerMillion: output,
      source: 'config',
      reference: file,
    },
    where,
  );
  return {
    name: name ?? spec,
    description: `price file ${file}, OpenAI prompt cache`,
    prices,
    promptCache: OPENAI_PROMPT_CACHE,
  };
}
