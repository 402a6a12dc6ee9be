import type { Message } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { ReadLedger } from './read-ledger.js';

let callNumber = 0;

function result(toolName: string, metadata: Record<string, string | number | boolean | null>, error = false): Message {
  return {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: `call_${(callNumber += 1)}`,
        toolName,
        output: error ? { type: 'error-text', value: 'no' } : { type: 'text', value: 'ok' },
        metadata,
      },
    ],
  };
}

describe('ReadLedger.fromTranscript', () => {
  it('rebuilds full reads and edits, later results winning, ignoring partial reads, errors and other tools', () => {
    const ledger = ReadLedger.fromTranscript([
      { role: 'user', content: 'hi' },
      result('read_file', { path: 'a.ts', sha256: 'a1', bytes: 3, complete: true }),
      result('read_file', { path: 'b.ts', sha256: 'b1', bytes: 3, complete: false }),
      result('edit_file', { path: 'a.ts', sha256Before: 'a1', sha256After: 'a2' }),
      result('edit_file', { path: 'c.ts', sha256Before: null, sha256After: 'c1' }),
      result('read_file', { path: 'd.ts', sha256: 'd1', bytes: 3, complete: true }, true),
      result('search', { path: 'e.ts', sha256: 'e1', complete: true }),
    ]);
    expect(ledger.entries()).toEqual([
      ['a.ts', 'a2'],
      ['c.ts', 'c1'],
    ]);
  });

  it('records, replaces and forgets hashes', () => {
    const ledger = new ReadLedger();
    ledger.record('x', '1');
    ledger.record('x', '2');
    expect(ledger.hashOf('x')).toBe('2');
    expect(ledger.forget('x')).toBe(true);
    expect(ledger.hashOf('x')).toBeUndefined();
    expect(ledger.size).toBe(0);
  });
});
