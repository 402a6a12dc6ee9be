import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from './json.js';
import type { Message } from './messages.js';
import { canonicalJsonStringify, hashMessages, MessagesHasher } from './hashing.js';

const message = fc.oneof(
  fc.record({ role: fc.constant('user' as const), content: fc.string() }),
  fc.record({
    role: fc.constant('assistant' as const),
    content: fc.array(fc.record({ type: fc.constant('text' as const), text: fc.string() }), { maxLength: 3 }),
  }),
) as fc.Arbitrary<Message>;

/** The hash as it was defined before it was streamed: SHA-256 of the whole array's canonical JSON. */
function wholeStringHash(messages: readonly Message[]): string {
  return createHash('sha256')
    .update(canonicalJsonStringify(messages as unknown as JsonValue))
    .digest('hex');
}

describe('hashMessages', () => {
  it('gives the hash of the whole canonical array, for any range, without building it', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), fc.nat(), fc.nat(), (messages, a, b) => {
        const from = Math.min(a, b) % (messages.length + 1);
        const to = from + (Math.max(a, b) % (messages.length - from + 1));
        expect(hashMessages(messages)).toBe(wholeStringHash(messages));
        expect(hashMessages(messages, from, to)).toBe(wholeStringHash(messages.slice(from, to)));
      }),
    );
  });

  it('lets a hasher report the hash so far and keep adding', () => {
    const messages: Message[] = [
      { role: 'user', content: 'one' },
      { role: 'user', content: 'two' },
    ];
    const hasher = new MessagesHasher().add(messages[0] as Message);
    expect(hasher.digestSoFar()).toBe(wholeStringHash(messages.slice(0, 1)));
    expect(hasher.add(messages[1] as Message).digest()).toBe(wholeStringHash(messages));
  });
});
