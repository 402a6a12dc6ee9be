import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MessageBuffer } from './message-buffer.js';

const drain = (buffer: MessageBuffer) => {
  const messages = [];
  for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) messages.push(message);
  return messages;
};

describe('MessageBuffer', () => {
  it('yields the same messages however the stream is cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.nat(), text: fc.string({ unit: 'grapheme' }) }), { maxLength: 8 }),
        fc.array(fc.nat({ max: 64 }), { maxLength: 20 }),
        (results, cuts) => {
          const messages = results.map(({ id, text }) => ({ jsonrpc: '2.0' as const, id, result: { text } }));
          const bytes = Buffer.from(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
          const buffer = new MessageBuffer(1024 * 1024);
          let start = 0;
          for (const cut of cuts) {
            buffer.append(bytes.subarray(start, start + cut));
            start = Math.min(bytes.length, start + cut);
          }
          buffer.append(bytes.subarray(start));
          expect(drain(buffer)).toEqual(messages);
        },
      ),
    );
  });

  it('drops a message above its limit, answers its request with an error, and reads the next one', () => {
    const buffer = new MessageBuffer(1000);
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { text: 'x'.repeat(5000) } });
    for (let start = 0; start < huge.length; start += 300) buffer.append(Buffer.from(huge.slice(start, start + 300)));
    buffer.append(Buffer.from(`\n${JSON.stringify({ jsonrpc: '2.0', id: 8, result: {} })}\n`));
    const [dropped, next] = drain(buffer);
    expect(dropped).toMatchObject({ id: 7, error: { code: -32603 } });
    expect(JSON.stringify(dropped)).toContain('it was dropped');
    expect(next).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
  });
});
