/*
 * A tokenizer-free count that errs high. It mimics how byte-pair tokenizers of the GPT-4 family
 * (and the many open-model tokenizers built the same way) first split text into words, numbers,
 * punctuation runs and whitespace, then charges each piece more than such tokenizers usually need:
 *
 * - a word of up to 5 ASCII letters costs 1 token (common words are one token, with the space
 *   before them), longer words 1 more per 4 letters; camelCase is split like o200k splits it, and a
 *   piece with capitals after its first letter (ALLCAPS, random case) costs 1 per 2 letters;
 * - digits cost 1 per 3 (tokenizers group at most three digits);
 * - ASCII punctuation costs 1 per 1.5 characters, a newline run 1, a run of spaces 1 per 16;
 * - two-byte UTF-8 letters (accented Latin, Cyrillic, Greek, …) cost 0.75 each, other BMP
 *   characters (CJK, kana, hangul, symbols) 2 each, astral characters (emoji, rare CJK) 4 each —
 *   byte-level fallback makes rare characters cost several tokens;
 * - a whitespace-free chunk of 8 or more characters that switches character class on at least
 *   35 % of its characters (hashes, base64, keys, UUIDs) looks random and costs 1 per 1.3
 *   characters, because tokenizers find few merges in random text.
 *
 * Measured against o200k and cl100k (see `conservative-bound.test.ts` in @forge/model-openai and
 * docs/context-management.md), it over-counts prose and code by roughly 40–60 %, CJK by 2–3×
 * against o200k, and stays at or above both on hex, base64, UUIDs and random ASCII.
 */

const SPACE = 32;
const TAB = 9;
const LINE_FEED = 10;
const CARRIAGE_RETURN = 13;

const enum CharacterClass {
  Lower,
  Upper,
  Digit,
  AsciiOther,
  NonAscii,
}

function isWhitespace(code: number): boolean {
  return code === SPACE || code === TAB || code === LINE_FEED || code === CARRIAGE_RETURN;
}

function isLower(code: number): boolean {
  return code >= 97 && code <= 122;
}

function isUpper(code: number): boolean {
  return code >= 65 && code <= 90;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function classOf(code: number): CharacterClass {
  if (isLower(code)) return CharacterClass.Lower;
  if (isUpper(code)) return CharacterClass.Upper;
  if (isDigit(code)) return CharacterClass.Digit;
  return code < 0x80 ? CharacterClass.AsciiOther : CharacterClass.NonAscii;
}

const RANDOM_MIN_LENGTH = 8;
const RANDOM_SWITCH_RATIO = 0.35;
const RANDOM_CHARACTERS_PER_TOKEN = 1.3;

/** Tokens of `text` by the rules above; always ≥ the exact count of o200k on the measured corpus. */
export function countTextConservatively(text: string): number {
  let tokens = 0;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    let end = index + 1;
    if (isWhitespace(code)) {
      while (end < length && isWhitespace(text.charCodeAt(end))) end += 1;
      tokens += whitespaceCost(text, index, end);
    } else {
      end = chunkEnd(text, index);
      tokens += looksRandom(text, index, end)
        ? (end - index) / RANDOM_CHARACTERS_PER_TOKEN
        : structuredCost(text, index, end);
    }
    index = end;
  }
  return Math.ceil(tokens);
}

function chunkEnd(text: string, start: number): number {
  let end = start + 1;
  while (end < text.length && !isWhitespace(text.charCodeAt(end))) end += 1;
  return end;
}

function isVowel(code: number): boolean {
  const lower = code | 0x20;
  return lower === 97 || lower === 101 || lower === 105 || lower === 111 || lower === 117 || lower === 121;
}

/*
 * Random text switches character class often. Switches between letters and digits or punctuation
 * count fully; switches of letter case count too, unless the letters read like words (enough
 * vowels, few hard switches): that is camelCase, which tokenizers split into word pieces.
 */
function looksRandom(text: string, start: number, end: number): boolean {
  const length = end - start;
  if (length < RANDOM_MIN_LENGTH) return false;
  let hardSwitches = 0;
  let caseSwitches = 0;
  let letters = 0;
  let vowels = 0;
  let previous = classOf(text.charCodeAt(start));
  for (let index = start; index < end; index += 1) {
    const code = text.charCodeAt(index);
    const current = classOf(code);
    if (current === CharacterClass.Lower || current === CharacterClass.Upper) {
      letters += 1;
      if (isVowel(code)) vowels += 1;
    }
    if (index > start && current !== previous) {
      const bothLetters =
        (current === CharacterClass.Lower || current === CharacterClass.Upper) &&
        (previous === CharacterClass.Lower || previous === CharacterClass.Upper);
      if (bothLetters) caseSwitches += 1;
      else hardSwitches += 1;
    }
    previous = current;
  }
  const wordLike = letters > 0 && vowels / letters >= 0.3 && hardSwitches / length < 0.2;
  return (hardSwitches + (wordLike ? 0 : caseSwitches)) / length >= RANDOM_SWITCH_RATIO;
}

function whitespaceCost(text: string, start: number, end: number): number {
  let tokens = 0;
  let spaces = 0;
  let inNewlines = false;
  for (let index = start; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code === LINE_FEED || code === CARRIAGE_RETURN) {
      if (spaces > 1) tokens += Math.ceil(spaces / 16);
      spaces = 0;
      if (!inNewlines) tokens += 1;
      inNewlines = true;
    } else {
      spaces += 1;
      inNewlines = false;
    }
  }
  // One space before a word travels with the word's token.
  const followedByText = end < text.length;
  if (spaces > 1 || (spaces === 1 && !followedByText)) tokens += Math.ceil(spaces / 16);
  return tokens;
}

function structuredCost(text: string, start: number, end: number): number {
  let tokens = 0;
  let index = start;
  while (index < end) {
    const code = text.charCodeAt(index);
    let next = index + 1;
    if (isLower(code) || isUpper(code)) {
      while (next < end && (isLower(text.charCodeAt(next)) || isUpper(text.charCodeAt(next)))) next += 1;
      tokens += wordCost(text, index, next);
    } else if (isDigit(code)) {
      while (next < end && isDigit(text.charCodeAt(next))) next += 1;
      tokens += Math.ceil((next - index) / 3);
    } else if (code < 0x80) {
      while (next < end) {
        const following = text.charCodeAt(next);
        if (following >= 0x80 || isLower(following) || isUpper(following) || isDigit(following)) break;
        next += 1;
      }
      tokens += Math.ceil((next - index) / 1.5);
    } else if (code < 0x800) {
      tokens += 0.75;
    } else if (code >= 0xd800 && code <= 0xdbff && next < end) {
      tokens += 4;
      next += 1;
    } else {
      tokens += 2;
    }
    index = next;
  }
  return tokens;
}

/** Letters split where a lower-case letter is followed by a capital, as o200k does. */
function wordCost(text: string, start: number, end: number): number {
  let tokens = 0;
  let pieceStart = start;
  for (let index = start + 1; index <= end; index += 1) {
    const splitsHere = index === end || (isUpper(text.charCodeAt(index)) && isLower(text.charCodeAt(index - 1)));
    if (splitsHere) {
      tokens += pieceCost(text, pieceStart, index);
      pieceStart = index;
    }
  }
  return tokens;
}

function pieceCost(text: string, start: number, end: number): number {
  const length = end - start;
  for (let index = start + 1; index < end; index += 1) {
    if (isUpper(text.charCodeAt(index))) return Math.ceil(length / 2);
  }
  return length <= 5 ? 1 : 1 + Math.ceil((length - 5) / 4);
}
