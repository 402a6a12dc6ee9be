import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../json.js';
import { buildForgeStateCheckpoint } from './build.js';
import { CHECKPOINT_CAPS } from './caps.js';
import { createCheckpointNoteTool } from './checkpoint-note-tool.js';
import {
  TIGHT_CAPS,
  assistant,
  editFile,
  hashOf,
  note,
  readFile,
  redactSecrets,
  results,
  text,
  user,
} from './fixtures.test-helpers.js';
import type { CheckpointTranscriptEntry } from './host-metadata.js';
import { applyMemoryUpdate, capMemory } from './memory-apply.js';
import type { AcceptedMemoryUpdate } from './memory-update.js';
import { reduceMemoryFromTranscript } from './memory-replay.js';
import { emptyCheckpointMemory, type CheckpointMemory, type DecisionRecord, type FactRecord } from './schema.js';
import { bugfixSession, hostileSession } from './sessions.test-helpers.js';
import { renderCheckpointView } from './view.js';

const evidence = { source: 'user', messageIndex: 0 } as const;

function fact(key: string, seq: number): AcceptedMemoryUpdate {
  return { kind: 'fact', record: { key, value: `${key} value`, evidence, dependsOn: [], seq } };
}

function decision(id: string, seq: number, supersedes: string | null = null): AcceptedMemoryUpdate {
  return {
    kind: 'decision',
    record: { id, topic: null, decision: `decision ${id}`, rationale: 'because', supersedes, evidence, seq },
  };
}

function applyAll(updates: readonly AcceptedMemoryUpdate[], caps = CHECKPOINT_CAPS): CheckpointMemory {
  return updates.reduce((memory, update) => applyMemoryUpdate(memory, update, caps), emptyCheckpointMemory());
}

describe('applyMemoryUpdate', () => {
  it('does not modify the memory it is given', () => {
    const memory = applyAll([fact('a', 1), { kind: 'plan', steps: [{ id: 's', text: 'step', done: null }], seq: 2 }]);
    const snapshot = JSON.stringify(memory);
    applyMemoryUpdate(memory, { kind: 'plan', steps: [{ id: 's', text: null, done: true }], seq: 3 });
    applyMemoryUpdate(memory, fact('a', 4));
    expect(JSON.stringify(memory)).toBe(snapshot);
  });

  it('replaces a fact with the same key and keeps facts sorted by key', () => {
    const memory = applyAll([fact('b', 1), fact('a', 2), fact('b', 3)]);
    expect(memory.facts.map((item: FactRecord) => [item.key, item.seq])).toEqual([
      ['a', 2],
      ['b', 3],
    ]);
  });

  it('evicts the least recently written fact, ties broken by key', () => {
    const memory = applyAll([fact('c', 5), fact('b', 5), fact('a', 7), fact('d', 8)], TIGHT_CAPS);
    expect(memory.facts.map((item) => item.key)).toEqual(['a', 'd']);
  });

  it('evicts superseded decisions before live ones, then the oldest', () => {
    const memory = applyAll([decision('d1', 1), decision('d2', 2, 'd1'), decision('d3', 3)], {
      ...CHECKPOINT_CAPS,
      maxDecisions: 2,
    });
    expect(memory.decisions.map((item: DecisionRecord) => item.id)).toEqual(['d2', 'd3']);
  });

  it('evicts finished plan steps before open ones', () => {
    const memory = applyAll(
      [
        {
          kind: 'plan',
          steps: [
            { id: 'a', text: 'A', done: null },
            { id: 'b', text: 'B', done: true },
          ],
          seq: 1,
        },
        { kind: 'plan', steps: [{ id: 'c', text: 'C', done: null }], seq: 2 },
      ],
      TIGHT_CAPS,
    );
    expect(memory.plan.map((step) => [step.id, step.done])).toEqual([
      ['a', false],
      ['c', false],
    ]);
  });

  it('keeps one copy of a repeated constraint or rejected approach, the newest', () => {
    const memory = applyAll([
      { kind: 'constraint', record: { text: 'Use pnpm', evidence, seq: 1 } },
      { kind: 'constraint', record: { text: 'Use pnpm', evidence, seq: 4 } },
      { kind: 'rejected_approach', record: { approach: 'A', reason: 'r1', retryOnlyIf: null, evidence, seq: 2 } },
      { kind: 'rejected_approach', record: { approach: 'A', reason: 'r2', retryOnlyIf: null, evidence, seq: 3 } },
    ]);
    expect(memory.constraints.map((item) => item.seq)).toEqual([4]);
    expect(memory.rejectedApproaches.map((item) => item.reason)).toEqual(['r2']);
  });

  it('brings memory recorded under larger caps within smaller ones by the same rules', () => {
    const memory = applyAll([fact('a', 1), fact('b', 2), fact('c', 3), decision('d1', 1), decision('d2', 2, 'd1')]);
    const capped = capMemory(memory, TIGHT_CAPS);
    expect(capped.facts.map((item) => item.key)).toEqual(['b', 'c']);
    expect(capped.decisions.map((item) => item.id)).toEqual(['d2']);
  });

  it('hides a superseded decision in the view but keeps it in memory', () => {
    const memory = applyAll([decision('d1', 1), decision('d2', 2, 'd1')]);
    const checkpoint = {
      ...buildForgeStateCheckpoint({ transcript: [user('Go.')], tailStart: 0, redact: redactSecrets }),
      memory,
    };
    const view = renderCheckpointView(checkpoint);
    expect(view).toContain('- decision d2 — because because (id=d2, supersedes=d1, evidence=user#0)');
    expect(view).not.toContain('- decision d1');
    expect(memory.decisions).toHaveLength(2);
  });
});

describe('reduceMemoryFromTranscript', () => {
  it('rebuilds memory from the accepted notes of the bug-fix session', () => {
    const memory = reduceMemoryFromTranscript(bugfixSession().transcript);
    expect(memory.plan.map((step) => [step.id, step.done])).toEqual([
      ['repro', true],
      ['fix', true],
    ]);
    expect(memory.constraints.map((item) => item.text)).toEqual(['Do not change the public API of src/auth.ts']);
    expect(memory.decisions.map((item) => item.id)).toEqual(['d1']);
    expect(memory.rejectedApproaches.map((item) => item.retryOnlyIf)).toEqual(['the retry loop is bounded first']);
    expect(memory.nextAction?.text).toBe('Add a lockout test to test/auth.test.ts');
  });

  it('drops notes the tool rejected and notes forged to look accepted that the validator refuses', () => {
    expect(reduceMemoryFromTranscript(hostileSession().transcript)).toEqual(emptyCheckpointMemory());
  });

  it('judges a note by the session as it was when the note was made, not by later messages', () => {
    const transcript = [
      user('Check the parser.'),
      ...note('n1', {
        kind: 'fact',
        key: 'parser',
        value: 'parser is recursive',
        evidence: { source: 'tool-call', toolCallId: 'r1' },
        dependsOn: ['src/parser.ts'],
      }),
      ...readFile('r1', 'src/parser.ts', 'function parse() { return parse(); }'),
    ];
    expect(reduceMemoryFromTranscript(transcript).facts).toEqual([]);
  });

  it('records the dependency hash that was current when the fact was noted', () => {
    const transcript = [
      user('Check the parser.'),
      ...readFile('r1', 'src/parser.ts', 'v1'),
      ...editFile('e1', 'src/parser.ts', 'v1', 'v2'),
      ...note('n1', {
        kind: 'fact',
        key: 'parser',
        value: 'parser was edited',
        evidence: { source: 'tool-call', toolCallId: 'e1' },
        dependsOn: ['src/parser.ts'],
      }),
    ];
    const [recorded] = reduceMemoryFromTranscript(transcript).facts;
    expect(recorded?.dependsOn).toEqual([{ uri: 'file:src/parser.ts', hash: hashOf('v2') }]);
  });
});

describe('checkpoint_note tool', () => {
  function session(): CheckpointTranscriptEntry[] {
    return [
      user('Fix the build; keep Node 20 support.'),
      ...readFile('r1', 'package.json', '{"engines":{"node":">=20"}}'),
    ];
  }

  async function call(
    transcript: CheckpointTranscriptEntry[],
    input: JsonValue,
  ): Promise<{ type: string; value: string }> {
    const tool = createCheckpointNoteTool({ transcript: () => transcript });
    transcript.push(assistant('', [{ id: 'note_1', tool: 'checkpoint_note', input }]));
    const result = await tool.execute(input, { toolCallId: 'note_1', signal: new AbortController().signal });
    return result.output as { type: string; value: string };
  }

  it('is a read-risk tool named checkpoint_note with a JSON schema whose top level is an object', () => {
    const tool = createCheckpointNoteTool({ transcript: () => [] });
    expect(tool.name).toBe('checkpoint_note');
    expect(tool.risk).toBe('read');
    expect(tool.inputSchema['type']).toBe('object');
    expect(tool.describe?.({ kind: 'fact' })).toBe('record a fact note in the session checkpoint');
  });

  it('accepts a valid note, and its call then counts as memory once the result is recorded', async () => {
    const transcript = session();
    const input = {
      kind: 'constraint',
      text: 'Keep Node 20 support',
      evidence: { source: 'user', quote: 'keep Node 20 support' },
    };
    expect(await call(transcript, input)).toEqual({ type: 'text', value: 'Recorded constraint in session memory.' });
    transcript.push(
      results([{ id: 'note_1', tool: 'checkpoint_note', output: text('Recorded constraint in session memory.') }]),
    );
    expect(reduceMemoryFromTranscript(transcript).constraints).toEqual([
      { text: 'Keep Node 20 support', evidence: { source: 'user', messageIndex: 0 }, seq: 3 },
    ]);
  });

  it('returns the rejection reason as an error the model sees', async () => {
    const output = await call(session(), {
      kind: 'fact',
      key: 'node',
      value: 'package.json requires Node 20',
      evidence: { source: 'tool-call', toolCallId: 'r1' },
    });
    expect(output.type).toBe('error-text');
    expect(output.value).toMatch(
      /^checkpoint_note rejected: fact "node" comes from a file; list that file in "dependsOn"/,
    );
  });
});
