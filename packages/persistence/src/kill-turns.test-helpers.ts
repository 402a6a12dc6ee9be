import type { Message } from '@forge/core';

/**
 * The message number `index` of the kill test's session. Sizes vary from a few bytes to a few
 * hundred kilobytes so that some kills land in the middle of a long write.
 */
export function killTestMessage(index: number): Message {
  const size = [20, 300, 4_000, 30_000, 150_000][(index * 7919) % 5] ?? 20;
  const body = `turn ${index} `.padEnd(size, String.fromCharCode(97 + (index % 26)));
  return index % 2 === 0
    ? { role: 'user', content: body }
    : { role: 'assistant', content: [{ type: 'text', text: body }] };
}

/** How many messages the child appends in one call, so multi-record writes get killed too. */
export function killTestBatchSize(index: number): number {
  return index % 3 === 0 ? 2 : 1;
}
