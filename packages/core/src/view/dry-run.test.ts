import { describe, expect, it } from 'vitest';
import type { Message } from '../messages.js';
import { hashMessages } from './canonical-json.js';
import { dryRunCompaction } from './dry-run.js';

const countTokens = (message: Message) => (message.role === 'user' ? message.content.length : 10);

const transcript: Message[] = [
  { role: 'user', content: 'aaaa' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: 'x' } }] },
  { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
  { role: 'user', content: 'bb' },
  { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
];

describe('dryRunCompaction', () => {
  it('splits the transcript into an eligible prefix and a kept tail with token counts', () => {
    const before = structuredClone(transcript);
    const preview = dryRunCompaction(transcript, { budgetTokens: 22, countTokens });
    expect(preview).toEqual({
      budgetTokens: 22,
      totalMessages: 6,
      totalTokens: 46,
      alreadySummarized: { start: 0, end: 0, messages: 0, groups: 0, tokens: 0 },
      eligiblePrefix: { start: 0, end: 3, messages: 3, groups: 2, tokens: 24 },
      keptTail: { start: 3, end: 6, messages: 3, groups: 3, tokens: 22 },
      tailOverBudget: false,
    });
    expect(transcript).toEqual(before);
  });

  it('starts the eligible prefix after what an existing checkpoint already summarized', () => {
    const preview = dryRunCompaction(transcript, { budgetTokens: 12, countTokens, summarizedThrough: 1 });
    expect(preview.alreadySummarized).toMatchObject({ start: 0, end: 1, tokens: 4 });
    expect(preview.eligiblePrefix).toMatchObject({ start: 1, end: 4, messages: 3, tokens: 30 });
    expect(preview.keptTail).toMatchObject({ start: 4, end: 6, tokens: 12 });
  });
});

describe('hashMessages', () => {
  it('does not depend on the order keys were written in', () => {
    const reordered: Message[] = [
      { content: 'aaaa', role: 'user' },
      { content: [{ input: { path: 'a' }, toolName: 'read', toolCallId: 'c1', type: 'tool-call' }], role: 'assistant' },
    ];
    expect(hashMessages(reordered)).toBe(hashMessages(transcript.slice(0, 2)));
    expect(hashMessages(transcript.slice(0, 1))).not.toBe(hashMessages(transcript.slice(0, 2)));
  });
});
