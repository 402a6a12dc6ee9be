/**
 * Server-supplied text (names, descriptions, elicitation messages) made safe to print: control
 * characters other than newline and tab are shown as `?`, so a server cannot move the cursor,
 * recolour or retitle the terminal.
 */
export function printableServerText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?');
}
