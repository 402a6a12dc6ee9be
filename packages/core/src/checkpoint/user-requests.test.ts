import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_CAPS } from './caps.js';
import { keepUserRequests, standingSentences } from './user-requests.js';

const identity = (text: string) => text;
const caps = { ...CHECKPOINT_CAPS, maxUserRequests: 4, maxUserRequestChars: 120, maxUserRequestsChars: 200 };

describe('the user requests a checkpoint keeps', () => {
  it('keeps every request in its words while they fit', () => {
    const messages = new Map([
      [0, 'Fix the flaky login test.'],
      [4, 'Use pnpm, never npm.'],
    ]);
    expect(keepUserRequests(messages, CHECKPOINT_CAPS, identity)).toEqual([
      { messageIndex: 0, text: 'Fix the flaky login test.' },
      { messageIndex: 4, text: 'Use pnpm, never npm.' },
    ]);
  });

  it('reduces the oldest requests after the first to their standing instructions, then drops them', () => {
    const messages = new Map([
      [0, 'Port the billing service to the new queue.'],
      [2, 'Look at the consumer first. Do not touch the migrations in db/migrations. It was slow yesterday.'],
      [6, 'Now check the retry logic and tell me what the backoff is, in detail, with the numbers from the code.'],
      [9, 'Then summarise the producer side for me, file by file, so I can review it tomorrow morning.'],
    ]);
    expect(keepUserRequests(messages, caps, identity)).toEqual([
      { messageIndex: 0, text: 'Port the billing service to the new queue.' },
      { messageIndex: 2, text: 'Do not touch the migrations in db/migrations.' },
      { messageIndex: 9, text: 'Then summarise the producer side for me, file by file, so I can review it tomorrow morning.' },
    ]);
  });

  it('cuts a long request to its first sentence and its standing instructions', () => {
    const long = `Refactor the cache. ${'It has grown over the years and nobody owns it. '.repeat(4)}Keep the public API unchanged.`;
    expect(keepUserRequests(new Map([[0, long]]), caps, identity)).toEqual([{ messageIndex: 0, text: 'Refactor the cache. Keep the public API unchanged.' }]);
  });

  it('redacts and removes approval claims before anything is kept', () => {
    const kept = keepUserRequests(new Map([[0, 'I approve every command today. Deploy with token sk-123.']]), CHECKPOINT_CAPS, (text) => text.replace('sk-123', '[REDACTED]'));
    expect(kept[0]?.text).not.toMatch(/approve every command|sk-123/);
    expect(kept[0]?.text).toContain('[REDACTED]');
  });

  it('reads sentences such as "never…", "use…" and "do not…" as standing instructions', () => {
    expect(standingSentences('This repository uses pnpm. The build is green. Never push to main.')).toEqual(['This repository uses pnpm.', 'Never push to main.']);
  });

  it('always stays within its caps, keeps the order, and gives the same result for the same input', () => {
    const text = fc.array(fc.constantFrom('Use tabs.', 'Never push.', 'Look here.', 'It is slow.', 'Keep the API.', 'Why?'), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(' '));
    fc.assert(
      fc.property(fc.array(text, { maxLength: 12 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 2, max: 80 }), fc.integer({ min: 0, max: 300 }), (texts, count, each, total) => {
        const limits = { ...CHECKPOINT_CAPS, maxUserRequests: count, maxUserRequestChars: each, maxUserRequestsChars: total };
        const messages = new Map(texts.map((value, index) => [index * 2, value]));
        const kept = keepUserRequests(messages, limits, identity);
        expect(keepUserRequests(messages, limits, identity)).toEqual(kept);
        expect(kept.length).toBeLessThanOrEqual(count);
        expect(kept.reduce((sum, request) => sum + request.text.length, 0)).toBeLessThanOrEqual(total);
        for (const request of kept) expect(request.text.length).toBeLessThanOrEqual(each);
        expect(kept.map((request) => request.messageIndex)).toEqual(kept.map((request) => request.messageIndex).sort((left, right) => left - right));
      }),
    );
  });
});
