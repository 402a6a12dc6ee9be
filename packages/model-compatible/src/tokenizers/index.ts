import {
  createTokenizerEstimator,
  loadHuggingFaceTokenizer,
  type TextTokenizer,
  type TokenizerEstimator,
} from '@forge/ai-sdk-bridge';
import { InvalidInputError, type ChatLayout } from '@forge/core';
import { LLAMA3_LAYOUT, loadLlama3Tokenizer } from './llama3.js';
import { loadQwen3Tokenizer, QWEN3_LAYOUT } from './qwen3.js';

/** A tokenizer family Forge ships: its tokenizer and its chat template. */
interface TokenizerFamily {
  readonly load: () => Promise<TextTokenizer>;
  readonly layout: ChatLayout;
}

/*
 * Adding a family is a module like qwen3.ts (loader and layout) and one line here; the
 * configuration schema lists the same names (a test keeps the two equal).
 */
const families: Readonly<Record<string, TokenizerFamily>> = {
  qwen3: { load: loadQwen3Tokenizer, layout: QWEN3_LAYOUT },
  llama3: { load: loadLlama3Tokenizer, layout: LLAMA3_LAYOUT },
};

/** The names a compatible server's `tokenizer` may give instead of a path. */
export const COMPATIBLE_TOKENIZER_FAMILIES: readonly string[] = Object.freeze(Object.keys(families));

/** Whether `tokenizer` names a tokenizer.json file rather than a family. */
function isTokenizerPath(tokenizer: string): boolean {
  return tokenizer.includes('/') || tokenizer.includes('\\') || tokenizer.endsWith('.json');
}

/**
 * The estimator of a compatible server's configured `tokenizer`: a family's tokenizer and chat
 * template, or a `tokenizer.json` (exact text; framing bounded by core's defaults, since the
 * server's template is not known). Throws `InvalidInputError` for an unknown family; a bad file
 * is reported by {@link loadCompatibleTokenizer}.
 */
export function compatibleTokenizerEstimator(tokenizer: string): TokenizerEstimator {
  return createTokenizerEstimator(tokenizerSource(tokenizer));
}

/** Loads the configured tokenizer now, so that a bad file is reported before any request. */
export function loadCompatibleTokenizer(tokenizer: string): Promise<TextTokenizer> {
  return tokenizerSource(tokenizer).load();
}

function tokenizerSource(tokenizer: string): {
  readonly load: () => Promise<TextTokenizer>;
  readonly layout?: ChatLayout;
} {
  if (isTokenizerPath(tokenizer))
    return { load: () => loadHuggingFaceTokenizer({ name: tokenizer, tokenizerPath: tokenizer }) };
  const family = families[tokenizer];
  if (family === undefined) {
    throw new InvalidInputError({
      message: `unknown tokenizer family "${tokenizer}"; use one of ${COMPATIBLE_TOKENIZER_FAMILIES.join(', ')} or the absolute path of a tokenizer.json`,
    });
  }
  return family;
}
