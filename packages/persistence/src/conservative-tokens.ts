import type { Message } from '@forge/core';

/** Tokens added to every message for the role and framing a provider wraps around it. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * A deliberately high token count for one message, for choosing the recent tail when no
 * tokenizer is at hand: the UTF-8 bytes of the message's JSON divided by 3, plus a small
 * per-message overhead. Real tokenizers average about 4 bytes of English or code per token and
 * the JSON adds keys and quotes, so this over-counts, which keeps a view inside its budget.
 * The same message always gets the same count, so the same transcript selects the same view.
 */
export function conservativeMessageTokens(message: Message): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify(message), 'utf8') / 3) + MESSAGE_OVERHEAD_TOKENS;
}
