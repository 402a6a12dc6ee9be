import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transcriptArbitraryForCodec } from './codec-arbitrary.test-helpers.js';
import { decodeLine, encodeRecord } from './record-codec.js';
import type { SessionRecord } from './records.js';

describe('record codec', () => {
  it('decodes what it encodes, for any message', () => {
    fc.assert(
      fc.property(transcriptArbitraryForCodec(), (message) => {
        const record: SessionRecord = {
          v: 2,
          seq: 1,
          type: 'message',
          at: '2025-01-01T00:00:00.000Z',
          index: 0,
          message,
        };
        const line = Buffer.from(encodeRecord(record));
        expect(line.at(-1)).toBe(10);
        expect(line.subarray(0, -1).includes(10)).toBe(false);
        // JSON has no -0; what comes back is what JSON can say.
        expect(decodeLine(line.subarray(0, -1))).toEqual({
          kind: 'record',
          record: JSON.parse(JSON.stringify(record)),
        });
      }),
    );
  });

  it('never accepts a line cut short', () => {
    fc.assert(
      fc.property(transcriptArbitraryForCodec(), fc.nat(), (message, cut) => {
        const line = Buffer.from(
          encodeRecord({ v: 2, seq: 1, type: 'message', at: 'now', index: 0, message }),
        ).subarray(0, -1);
        const length = cut % line.length;
        expect(decodeLine(line.subarray(0, length)).kind).toBe('damaged');
      }),
    );
  });
});
