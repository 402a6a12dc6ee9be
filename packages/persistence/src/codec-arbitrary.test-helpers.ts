import type { Message } from '@forge/core';
import fc from 'fast-check';

const json: fc.Arbitrary<import('@forge/core').JsonValue> = fc.jsonValue() as fc.Arbitrary<import('@forge/core').JsonValue>;

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
          fc.record({ type: fc.constant('reasoning' as const), text, providerMetadata: fc.dictionary(fc.string(), json) }),
          fc.record({ type: fc.constant('tool-call' as const), toolCallId: fc.string({ minLength: 1 }), toolName: fc.string({ minLength: 1 }), input: json }),
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
          output: fc.oneof(fc.record({ type: fc.constant('text' as const), value: text }), fc.record({ type: fc.constant('json' as const), value: json })),
        }),
      ),
    }),
  );
}
