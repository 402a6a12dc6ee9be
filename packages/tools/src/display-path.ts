/** Whether a character would break a one-path-per-line listing: C0 and C1 controls, DEL, line and paragraph separators. */
function breaksListing(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

/**
 * A workspace path as listings show it: unchanged, or as a JSON string (`"a\nb.txt"`) when it
 * holds a control character such as a newline, or starts with a double quote. Every listed line
 * is then one whole path, and a quoted one decodes to the exact name.
 */
export function displayPath(relative: string): string {
  let unsafe = relative.startsWith('"');
  for (let index = 0; index < relative.length && !unsafe; index += 1)
    unsafe = breaksListing(relative.charCodeAt(index));
  return unsafe ? quoted(relative) : relative;
}

/** A JSON string, with the controls JSON.stringify leaves raw (DEL, C1, U+2028/9) escaped too. */
function quoted(text: string): string {
  let result = '';
  for (const character of JSON.stringify(text)) {
    const code = character.charCodeAt(0);
    result += code >= 0x7f && breaksListing(code) ? `\\u${code.toString(16).padStart(4, '0')}` : character;
  }
  return result;
}
