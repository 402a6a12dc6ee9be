import { hashMessages, type Message } from '@forge/core';
import { renderCheckpointView, validateCheckpoint } from '@forge/core/checkpoint';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ImportCheckpointBuilder } from './import-checkpoint.js';
import type { CodexImportState } from './import-state.js';
import { RolloutReducer } from './reduce.js';

function emptyState(messages: number): CodexImportState {
  const state = new RolloutReducer(() => {}).finish({ bytes: 0, sha256: '0'.repeat(64) });
  return { ...state, transcript: { ...state.transcript, messages } };
}

function conversation(turns: number): Message[] {
  return Array.from({ length: turns }, (_, turn): Message[] => [
    { role: 'user', content: `Request ${turn}: fix module ${turn}; do not change module ${turn + 1}.` },
    { role: 'assistant', content: [{ type: 'text', text: `Fixed module ${turn}. ${'detail '.repeat(turn % 50)}` }] },
  ]).flat();
}

describe('ImportCheckpointBuilder', () => {
  it('makes a valid checkpoint within the caps however many messages stream through, with hashMessages as its source hash', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3000 }), (turns) => {
        const messages = conversation(turns);
        const builder = new ImportCheckpointBuilder((text) => text);
        for (const message of messages) builder.add(message);
        const checkpoint = builder.finish(emptyState(messages.length));
        expect(validateCheckpoint(checkpoint, messages.length)).toMatchObject({ ok: true });
        expect(checkpoint.source.sourceHash).toBe(hashMessages(messages));
        if (turns === 0) return;
        const view = renderCheckpointView(checkpoint);
        expect(view).toContain(`- latest user request (user#${messages.length - 2}):`);
        if (turns > 1)
          expect(view).toContain('- earlier user request (user#0): Request 0: fix module 0; do not change module 1.');
        expect(view).toContain('(from user#');
        expect(view).toMatch(/#0 user: Request 0/);
      }),
      { numRuns: 25 },
    );
  });

  it('gives the same bytes for the same messages', () => {
    const messages = conversation(400);
    const build = () => {
      const builder = new ImportCheckpointBuilder((text) => text);
      for (const message of messages) builder.add(message);
      return JSON.stringify(builder.finish(emptyState(messages.length)));
    };
    expect(build()).toBe(build());
  });
});
