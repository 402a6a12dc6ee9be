import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../hashing.js';
import type { Message } from '../messages.js';
import { chooseProjection, type OutputSizes } from './projection-plan.js';
import { projectionCandidates, type ProjectionCandidate } from './tool-output-projection.js';

function turn(id: string, toolName: string, value: string, metadata: Record<string, unknown>): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input: {} }] },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value }, metadata: metadata as never },
      ],
    },
  ];
}

const big = (seed: string) => `${seed}\n`.repeat(600);
const read = (id: string, path: string, content: string, complete = true) =>
  turn(id, 'read_file', content, { path, sha256: sha256Hex(content), bytes: content.length, complete });

describe('projectionCandidates', () => {
  it('marks what the host knows was replaced: a file read again with new content or whole, edited, a command run again', () => {
    const messages: Message[] = [
      ...read('r1', 'a.ts', big('a v1')),
      ...read('r2', 'b.ts', big('b v1')),
      ...read('r3', 'c.ts', big('c v1')),
      ...turn('c1', 'run_command', big('FAIL'), { argv: ['npm', 'test'], exitCode: 1 }),
      ...turn('c2', 'run_command', big('lint ok'), { argv: ['npm', 'run', 'lint'], exitCode: 0 }),
      ...read('r4', 'a.ts', big('a v2')),
      ...turn('e1', 'edit_file', 'edited', {
        path: 'b.ts',
        sha256Before: sha256Hex(big('b v1')),
        sha256After: sha256Hex('b v2'),
      }),
      // A partial read of unchanged content does not replace a whole one.
      ...read('r5', 'c.ts', big('c v1'), false),
      ...turn('c3', 'run_command', big('PASS'), { argv: ['npm', 'test'], exitCode: 0 }),
      { role: 'user', content: 'next' },
    ];
    const found = projectionCandidates(messages);
    expect(found.map((candidate) => [candidate.toolCallId, candidate.supersededBy ?? null])).toEqual([
      ['r1', 'read'],
      ['r2', 'edit'],
      ['r3', null],
      ['c1', 'command'],
      ['c2', null],
      ['r4', null],
      ['r5', null],
      ['c3', null],
    ]);
    expect(found.find((candidate) => candidate.toolCallId === 'r5')?.subject).toBe('file:c.ts');
    // A call id the view holds twice (the latest exchange reusing it) is never a candidate.
    const reused = [...messages.slice(0, -1), ...read('r1', 'd.ts', big('d'))];
    expect(projectionCandidates(reused).map((candidate) => candidate.toolCallId)).not.toContain('r1');
    expect(found.find((candidate) => candidate.toolCallId === 'c3')?.subject).toBe('command:["npm","test"]');
  });
});

const candidatesArbitrary = fc
  .array(
    fc.record({
      subject: fc.constantFrom('file:a', 'file:b', 'file:c', 'command:x', 'call:1', 'call:2'),
      superseded: fc.boolean(),
      verbatim: fc.integer({ min: 0, max: 5_000 }),
    }),
    {
      maxLength: 30,
    },
  )
  .map((rows) => {
    const candidates: ProjectionCandidate[] = rows.map((row, index) => ({
      toolCallId: `id${index}`,
      messageIndex: index,
      subject: row.subject,
      ...(row.superseded ? { supersededBy: 'read' as const } : {}),
    }));
    const sizes = new Map<string, OutputSizes>(
      rows.map((row, index) => [`id${index}`, { verbatim: row.verbatim, projected: Math.min(row.verbatim, 120) }]),
    );
    return { candidates, sizes };
  });

describe('chooseProjection', () => {
  const choiceInput = fc.record({
    view: candidatesArbitrary,
    excessTokens: fc.integer({ min: -1_000, max: 60_000 }),
    protectedTokens: fc.integer({ min: 0, max: 20_000 }),
  });

  it('takes superseded outputs first, each group oldest first, and stops as soon as the excess is saved', () => {
    fc.assert(
      fc.property(choiceInput, ({ view, excessTokens, protectedTokens }) => {
        const choice = chooseProjection({ ...view, excessTokens, protectedTokens });
        const byId = new Map(view.candidates.map((candidate) => [candidate.toolCallId, candidate]));
        const picked = choice.ids.map((id) => byId.get(id) as ProjectionCandidate);
        const firstPlain = picked.findIndex((candidate) => candidate.supersededBy === undefined);
        if (firstPlain >= 0)
          expect(picked.slice(firstPlain).every((candidate) => candidate.supersededBy === undefined)).toBe(true);
        const superseded = picked
          .filter((candidate) => candidate.supersededBy !== undefined)
          .map((candidate) => candidate.messageIndex);
        const plain = picked
          .filter((candidate) => candidate.supersededBy === undefined)
          .map((candidate) => candidate.messageIndex);
        expect(superseded).toEqual([...superseded].sort((left, right) => left - right));
        expect(plain).toEqual([...plain].sort((left, right) => left - right));
        const saving = (id: string) => (view.sizes.get(id)?.verbatim ?? 0) - (view.sizes.get(id)?.projected ?? 0);
        // Nothing more than needed: without the last pick, the excess would not have been saved.
        const last = choice.ids.at(-1);
        if (last !== undefined) expect(choice.savedTokens - saving(last)).toBeLessThan(excessTokens);
        if (excessTokens <= 0) expect(choice.ids).toEqual([]);
        expect(choice.savedTokens).toBe(choice.ids.reduce((total, id) => total + saving(id), 0));
      }),
    );
  });

  it('never projects the protected newest distinct outputs, which fit in the budget and hold one output per subject', () => {
    fc.assert(
      fc.property(choiceInput, ({ view, excessTokens, protectedTokens }) => {
        const choice = chooseProjection({ ...view, excessTokens, protectedTokens });
        const kept = new Set(choice.protectedIds);
        expect(choice.ids.some((id) => kept.has(id))).toBe(false);
        const protectedCandidates = view.candidates.filter((candidate) => kept.has(candidate.toolCallId));
        expect(protectedCandidates.every((candidate) => candidate.supersededBy === undefined)).toBe(true);
        expect(new Set(protectedCandidates.map((candidate) => candidate.subject)).size).toBe(
          protectedCandidates.length,
        );
        expect(
          protectedCandidates.reduce(
            (total, candidate) => total + (view.sizes.get(candidate.toolCallId)?.verbatim ?? 0),
            0,
          ),
        ).toBeLessThanOrEqual(protectedTokens);
        // Protection is the newest run of distinct outputs: no unprotected, unsuperseded newest-of-its-subject output is newer than a protected one.
        const oldestProtected = Math.min(...protectedCandidates.map((candidate) => candidate.messageIndex));
        const newestOfSubject = new Map<string, number>();
        for (const candidate of view.candidates)
          if (candidate.supersededBy === undefined) newestOfSubject.set(candidate.subject, candidate.messageIndex);
        for (const candidate of view.candidates) {
          if (
            candidate.messageIndex > oldestProtected &&
            candidate.supersededBy === undefined &&
            newestOfSubject.get(candidate.subject) === candidate.messageIndex
          ) {
            expect(kept.has(candidate.toolCallId)).toBe(true);
          }
        }
      }),
    );
  });

  it('is a function of its input: the same view gives the same choice', () => {
    fc.assert(
      fc.property(choiceInput, ({ view, excessTokens, protectedTokens }) => {
        const first = chooseProjection({ ...view, excessTokens, protectedTokens });
        const again = chooseProjection({
          candidates: structuredClone(view.candidates),
          sizes: new Map([...view.sizes].reverse()),
          excessTokens,
          protectedTokens,
        });
        expect(again).toEqual(first);
      }),
    );
  });
});
