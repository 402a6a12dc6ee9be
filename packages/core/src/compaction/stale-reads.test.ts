import { describe, expect, it } from 'vitest';
import type { CheckpointTranscriptEntry } from '../checkpoint/host-metadata.js';
import { sha256Hex } from '../hashing.js';
import type { Message } from '../messages.js';
import { markStaleReads, readArtifacts } from './stale-reads.js';

const v1 = 'export const RETRIES = 3;\n';
const v2 = 'export const RETRIES = 5;\n';

function read(id: string, path: string, content: string): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path } }] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'read_file',
          output: { type: 'text', value: content },
          metadata: { path, sha256: sha256Hex(content) },
        },
      ],
    },
  ];
}

function edit(id: string, path: string, before: string, after: string): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'edit_file', input: { path } }] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'edit_file',
          output: { type: 'text', value: 'Edited.' },
          metadata: { path, sha256Before: sha256Hex(before), sha256After: sha256Hex(after) },
        },
      ],
    },
  ];
}

const entries = (messages: readonly Message[]): CheckpointTranscriptEntry[] =>
  messages.map((message) => ({ message, runId: 'run_1' }));

describe('markStaleReads', () => {
  it('shows a read of a file changed outside the conversation as out of date, keeping its place and its call', () => {
    const history = [
      { role: 'user' as const, content: 'What are the retries?' },
      ...read('r1', 'src/config.ts', v1),
      ...read('r2', 'src/other.ts', 'x'),
    ];
    expect(readArtifacts(history)).toEqual(['file:src/config.ts', 'file:src/other.ts']);
    const now = new Map([
      ['file:src/config.ts', sha256Hex(v2)],
      ['file:src/other.ts', sha256Hex('x')],
    ]);
    const marked = markStaleReads(entries(history), history, now);
    expect(marked.stale).toEqual(['r1']);
    expect(marked.history).toHaveLength(history.length);
    expect(marked.history[0]).toBe(history[0]);
    expect(marked.history[4]).toBe(history[4]);
    const note = marked.history[2];
    expect(note?.role === 'tool' && note.content[0]?.toolCallId).toBe('r1');
    expect(JSON.stringify(note)).not.toContain('RETRIES = 3');
    expect(JSON.stringify(note)).toMatch(
      /out of date: read_file of src\/config\.ts .* changed outside this conversation .*Read the file again/,
    );
  });

  it('leaves reads alone when the agent changed the file itself (the edit is in the history), or nothing changed', () => {
    const history = [...read('r1', 'src/config.ts', v1), ...edit('e1', 'src/config.ts', v1, v2)];
    const afterEdit = markStaleReads(entries(history), history, new Map([['file:src/config.ts', sha256Hex(v2)]]));
    expect(afterEdit).toEqual({ history, stale: [] });
    const unchanged = read('r1', 'src/config.ts', v1);
    expect(
      markStaleReads(entries(unchanged), unchanged, new Map([['file:src/config.ts', sha256Hex(v1)]])).stale,
    ).toEqual([]);
  });

  it('says when a file is gone', () => {
    const history = read('r1', 'src/config.ts', v1);
    const marked = markStaleReads(entries(history), history, new Map([['file:src/config.ts', null]]));
    expect(JSON.stringify(marked.history[1])).toContain('it can no longer be read');
  });
});
