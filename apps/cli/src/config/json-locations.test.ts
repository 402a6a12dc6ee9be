import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonValueOffsets, locateJsonPath } from './json-locations.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every dotted path of `value` with what should start at its offset in compact JSON text. */
function expectedStarts(value: Json, path = ''): [string, string][] {
  const join = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (Array.isArray(value))
    return value.flatMap((item, index) => [
      [join(String(index)), JSON.stringify(item)] as [string, string],
      ...expectedStarts(item, join(String(index))),
    ]);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [
      [join(key), `${JSON.stringify(key)}:${JSON.stringify(item)}`] as [string, string],
      ...expectedStarts(item, join(key)),
    ]);
  }
  return [];
}

const keyWithoutDots = fc.string({ minLength: 1 }).filter((key) => !key.includes('.') && key !== '__proto__');
const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(keyWithoutDots, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('jsonValueOffsets', () => {
  it('finds every member at its key and every array item at its value, for any JSON', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = JSON.stringify(value);
        const offsets = jsonValueOffsets(text);
        for (const [path, start] of expectedStarts(value)) {
          const offset = offsets.get(path);
          expect(offset, path).toBeDefined();
          expect(text.slice(offset)).toMatch(new RegExp(`^${start.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('locates a nested key by line and column, and a missing one at its nearest parent', () => {
    const text =
      '{\n  "schemaVersion": 1,\n  "context": {\n    "bufferToken": 9000\n  },\n  "list": [1, {"a": 2}]\n}\n';
    expect(locateJsonPath(text, 'context.bufferToken')).toEqual({ line: 4, column: 5 });
    expect(locateJsonPath(text, 'list.1.a')).toEqual({ line: 6, column: 16 });
    expect(locateJsonPath(text, 'context.mode')).toEqual({ line: 3, column: 3 });
    expect(locateJsonPath(text, 'missing')).toEqual({ line: 1, column: 1 });
  });
});
