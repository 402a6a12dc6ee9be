import type { JsonObject, Message } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { expandFixture } from '../fixture/expand.js';
import { parseFixture } from '../fixture/load.js';
import {
  duplicateInputs,
  redundantRereadCalls,
  redundantRereads,
  repeatedFailedInvestigations,
  workingSetRereadCalls,
} from './transcript-metrics.js';

function call(
  id: string,
  toolName: string,
  input: JsonObject,
  result: { output: string; metadata: JsonObject; error?: boolean },
): Message[] {
  const { output, metadata, error = false } = result;
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input }] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName,
          output: error ? { type: 'error-text', value: output } : { type: 'text', value: output },
          metadata,
        },
      ],
    },
  ];
}

const read = (id: string, path: string, sha256: string) =>
  call(id, 'read_file', { path }, { output: 'content', metadata: { path, sha256 } });

describe('transcript metrics', () => {
  it('counts a working-set re-read only for text the agent needed and had been shown: read, written by its own edit, or printed by the same command', () => {
    const edit = (id: string, before: string, after: string) =>
      call(
        id,
        'edit_file',
        { path: 'src/a.ts', mode: 'replace', old: 'x', new: 'y' },
        {
          output: 'Replaced.',
          metadata: { path: 'src/a.ts', sha256Before: before, sha256After: after },
        },
      );
    const run = (id: string, output: string) =>
      call(id, 'run_command', { argv: ['pnpm', 'test'] }, { output, metadata: { exitCode: 1 } });
    const messages = [
      ...read('first', 'src/a.ts', 'h1'),
      ...read('again', 'src/a.ts', 'h1'),
      ...edit('e1', 'h1', 'h2'),
      ...read('after-edit', 'src/a.ts', 'h2'),
      ...read('outside', 'src/a.ts', 'h3'),
      ...run('t1', 'FAIL one'),
      ...run('t2', 'FAIL one'),
      ...run('t3', 'FAIL two'),
      ...read('for-a-fact', 'src/a.ts', 'h3'),
    ];
    const needsText = (id: string) => id !== 'for-a-fact' && id !== 'first';
    expect(workingSetRereadCalls(messages, needsText)).toEqual(['again', 'after-edit', 't2']);
    expect(workingSetRereadCalls(messages, () => false)).toEqual([]);
  });

  it('counts a re-read only when the file is unchanged since the last read, and not a re-read the edit tool needed', () => {
    const messages = [
      ...read('a1', 'src/a.ts', 'h1'),
      ...read('a2', 'src/a.ts', 'h1'),
      ...read('a3', 'src/a.ts', 'h2'),
      ...read('b1', 'src/b.ts', 'h9'),
      ...read('t4-s0-reread', 'src/b.ts', 'h9'),
    ];
    expect(redundantRereads(messages)).toBe(1);
  });

  it('says whether the agent had noted a fact from the file since its previous read, with an accepted note', () => {
    const note = (id: string, dependsOn: string, error = false) =>
      call(
        id,
        'checkpoint_note',
        { kind: 'fact', key: 'k', value: 'v', dependsOn: [dependsOn] },
        { output: error ? 'refused' : 'Recorded fact in session memory.', metadata: {}, error },
      );
    const messages = [
      ...read('a1', 'src/a.ts', 'h1'),
      ...note('n1', 'file:src/a.ts'),
      ...read('a2', 'src/a.ts', 'h1'),
      ...read('a3', 'src/a.ts', 'h1'),
      ...read('b1', 'src/b.ts', 'h2'),
      ...note('n2', 'file:src/b.ts', true),
      ...read('b2', 'src/b.ts', 'h2'),
    ];
    expect(redundantRereadCalls(messages)).toEqual([
      { toolCallId: 'a2', path: 'src/a.ts', noted: true },
      { toolCallId: 'a3', path: 'src/a.ts', noted: false },
      { toolCallId: 'b2', path: 'src/b.ts', noted: false },
    ]);
    // When the agent says which fact it re-read the file for, only a note of that fact counts.
    const keyed = redundantRereadCalls(messages, (id) => (id === 'a2' ? 'other' : undefined));
    expect(keyed[0]).toEqual({ toolCallId: 'a2', path: 'src/a.ts', noted: false });
  });

  it('counts runs of a failed approach after its first failure', () => {
    const fixture = expandFixture(
      parseFixture(
        {
          formatVersion: 1,
          id: 'metrics',
          title: 'metrics',
          model: { contextWindowTokens: 8000 },
          commands: [{ id: 'retry', argv: ['pnpm', 'retry'], results: [{ exitCode: 1, output: 'FAIL: flaky clock' }] }],
          approaches: [{ id: 'retry', description: 'retrying', command: 'retry', reason: 'FAIL: flaky clock' }],
          turns: [{ user: 'go' }],
        },
        'test',
      ),
    );
    const run = (id: string, exitCode: number) =>
      call(
        id,
        'run_command',
        { argv: ['pnpm', 'retry'] },
        { output: 'FAIL', metadata: { argv: ['pnpm', 'retry'], exitCode } },
      );
    const other = call(
      'o1',
      'run_command',
      { argv: ['pnpm', 'test'] },
      {
        output: 'FAIL',
        metadata: { argv: ['pnpm', 'test'], exitCode: 1 },
      },
    );
    expect(repeatedFailedInvestigations(fixture, [...run('r1', 1), ...other, ...run('r2', 1), ...run('r3', 1)])).toBe(
      2,
    );
    expect(repeatedFailedInvestigations(fixture, [...run('r1', 0), ...run('r2', 0)])).toBe(0);
  });

  it('counts user messages stored twice', () => {
    expect(
      duplicateInputs([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
        { role: 'user', content: 'a' },
      ]),
    ).toBe(1);
  });
});
