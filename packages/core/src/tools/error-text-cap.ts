/** The most of one tool error text kept, in UTF-8 bytes: the default cap `run_command` puts on a command's output. */
export const MAX_TOOL_ERROR_TEXT_BYTES = 64 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * `text` cut to `maxBytes` like long command output: its first and last halves with a marker
 * saying how much was left out between them. Shorter text is returned as it is.
 */
export function capToolErrorText(text: string, maxBytes: number = MAX_TOOL_ERROR_TEXT_BYTES): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: text this short cannot be over the cap.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const half = Math.floor(maxBytes / 2);
  // A multi-byte character cut in two at either edge is dropped rather than shown as U+FFFD.
  const head = decoder.decode(bytes.subarray(0, half)).replace(/\uFFFD$/, '');
  const tail = decoder.decode(bytes.subarray(bytes.length - half)).replace(/^\uFFFD/, '');
  return `${head}\n[… ${bytes.length - 2 * half} bytes of this error left out …]\n${tail}`;
}
