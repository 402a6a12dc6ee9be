import type { Message } from '@forge/core';
import fc from 'fast-check';

/*
 * JSON with no key named `__proto__`: zod's records (core's JSON schema) assign each key, so such
 * a key becomes the object's prototype instead of an entry and is not read back. Without this the
 * round-trip property fails on one run in a few, whatever the codec does.
 */
const json: fc.Arbitrary<import('@forge/core').JsonValue> = (
  fc.jsonValue() as fc.Arbitrary<import('@forge/core').JsonValue>
).filter((value) => !hasProtoKey(value));

function hasProtoKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasProtoKey);
  return Object.keys(value).some((key) => key === '__proto__') || Object.values(value).some(hasProtoKey);
}

/** Any valid core message, including unicode, control characters and nested JSON inputs. */
export function transcriptArbitraryForCodec(): fc.Arbitrary<Message> {
  const text = fc.string({ unit: 'binary' });
  return fc.oneof(
    fc.record({ role: fc.constant('user' as const), content: text }),
    fc.record({
      role: fc.constant('assistant' as const),
      content: fc.array(
        fc.oneof(
          fc.record({ type: fc.constant('text' as const), text }),
          fc.record({
            type: fc.constant('reasoning' as const),
            text,
            providerMetadata: fc.dictionary(
              fc.string().filter((key) => key !== '__proto__'),
              json,
            ),
          }),
          fc.record({
            type: fc.constant('tool-call' as const),
            toolCallId: fc.string({ minLength: 1 }),
            toolName: fc.string({ minLength: 1 }),
            input: json,
          }),
        ),
      ),
    }),
    fc.record({
      role: fc.constant('tool' as const),
      content: fc.array(
        fc.record({
          type: fc.constant('tool-result' as const),
          toolCallId: fc.string({ minLength: 1 }),
          toolName: fc.string({ minLength: 1 }),
          output: fc.oneof(
            fc.record({ type: fc.constant('text' as const), value: text }),
            fc.record({ type: fc.constant('json' as const), value: json }),
          ),
        }),
      ),
    }),
  );
}
