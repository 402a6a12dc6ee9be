/*
 * Byte-pair merging takes time quadratic in the length of one pre-tokenized piece in every
 * JavaScript tokenizer measured here (gpt-tokenizer, js-tiktoken, tokenizers.js): 200,000
 * identical letters take seconds. A piece is a run of letters (a CJK paragraph without
 * punctuation), of punctuation or of whitespace, so runs of 128 characters or more are cut into
 * 64-character slices and counted apart. Each cut can change the count at its edges; one token per
 * cut is added so the count never comes out lower. Text without such runs — nearly all text —
 * takes the fast, exact path.
 */
const LONG_RUN = /[\p{L}\p{M}]{128,}|[^\s\p{L}\p{N}]{128,}|\s{128,}/u;
const LONG_RUNS = /[\p{L}\p{M}]{128,}|[^\s\p{L}\p{N}]{128,}|\s{128,}/gu;
const SLICE = 64;

/** Tokens of `text` by `count`, with runs long enough to make byte-pair merging slow counted in slices (never lower). */
export function countWithBoundedRuns(count: (text: string) => number, text: string): number {
  if (!LONG_RUN.test(text)) return count(text);
  let tokens = 0;
  let start = 0;
  for (const match of text.matchAll(LONG_RUNS)) {
    const runStart = match.index;
    const runEnd = runStart + match[0].length;
    tokens += count(text.slice(start, runStart));
    let sliceStart = runStart;
    while (sliceStart < runEnd) {
      let sliceEnd = Math.min(runEnd, sliceStart + SLICE);
      // never split a surrogate pair
      if (sliceEnd < runEnd && /[\udc00-\udfff]/.test(text.charAt(sliceEnd))) sliceEnd += 1;
      tokens += count(text.slice(sliceStart, sliceEnd)) + 1;
      sliceStart = sliceEnd;
    }
    start = runEnd;
  }
  return tokens + count(text.slice(start));
}
