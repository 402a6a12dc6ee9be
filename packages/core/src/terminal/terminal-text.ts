/*
 * The one sanitizer for text that reaches a terminal from a model, a tool, a file, an MCP server
 * or a provider. A terminal interprets control characters and escape sequences (ESC]52 writes the
 * clipboard, ESC]0 the window title, ESC[2J clears the screen, a bare CR overwrites a line), so
 * each is shown as a visible escape (`\x1b`, `\r`, `\u202e`) and never written raw. Printable
 * text, including every non-Latin script, is unchanged.
 */

/** C0 controls, DEL and C1 controls, and the characters that reorder or hide text (bidi controls, line and paragraph separators). */
function isUnsafe(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x061c
  );
}

const NAMED: Readonly<Record<number, string>> = { 0x09: '\\t', 0x0a: '\\n', 0x0d: '\\r' };

function visible(code: number): string {
  const named = NAMED[code];
  if (named !== undefined) return named;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

function sanitize(text: string, keep: (code: number, next: number) => boolean): string {
  let result = '';
  let start = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (!isUnsafe(code) || keep(code, text.charCodeAt(index + 1))) continue;
    result += text.slice(start, index) + visible(code);
    start = index + 1;
  }
  return start === 0 ? text : result + text.slice(start);
}

/**
 * `text` as a terminal may show it, lines kept: newlines and tabs stay, a CR only before a
 * newline; every other control character and escape sequence is shown escaped (`\x1b[2J`).
 * Safe on streamed pieces: each character is judged alone, so a sequence split across two pieces
 * is escaped all the same.
 */
export function terminalText(text: string): string {
  return sanitize(text, (code, next) => code === 0x0a || code === 0x09 || (code === 0x0d && next === 0x0a));
}

/**
 * `text` as one terminal line (a tool name, an approval summary, an error): like
 * {@link terminalText}, and newlines and tabs are shown escaped too (`\n`), so nothing a server
 * or model names can start a line of its own in a prompt.
 */
export function terminalLine(text: string): string {
  return sanitize(text, () => false);
}
