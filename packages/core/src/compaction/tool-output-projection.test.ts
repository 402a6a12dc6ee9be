import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findUnpairedToolCalls, type Message } from '../messages.js';
import { splitIntoGroups } from '../view/groups.js';
import { transcriptArbitrary } from '../view/transcript-arbitrary.test-helpers.js';
import { applyToolOutputProjection, projectionCandidates, projectToolOutput } from './tool-output-projection.js';

describe('tool-output projection', () => {
  it('keeps every call paired, never touches the latest group or a pending call, and leaves the input unchanged', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), (messages) => {
        const before = structuredClone(messages);
        const ids = projectionCandidates(messages, { minOutputChars: 0, excerptChars: 5 }).map(
          (candidate) => candidate.toolCallId,
        );
        const projected = applyToolOutputProjection(messages, new Set(ids), { minOutputChars: 0, excerptChars: 5 });
        expect(messages).toEqual(before);
        expect(projected).toHaveLength(messages.length);
        expect(findUnpairedToolCalls(projected).map((call) => call.toolCallId)).toEqual(
          findUnpairedToolCalls(messages).map((call) => call.toolCallId),
        );
        const last = splitIntoGroups(messages).at(-1);
        for (let index = last?.start ?? messages.length; index < messages.length; index += 1)
          expect(projected[index]).toBe(messages[index]);
        projected.forEach((message, index) => {
          if (message.role !== 'tool') return;
          const original = messages[index] as Extract<Message, { role: 'tool' }>;
          message.content.forEach((part, position) => {
            expect(part.toolCallId).toBe(original.content[position]?.toolCallId);
            expect(part.output.type === 'error-text').toBe(original.content[position]?.output.type === 'error-text');
          });
        });
      }),
    );
  });

  it('says what the output was: tool, success, size, hash, an excerpt and how to get the rest', () => {
    const part = projectToolOutput(
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'run_command',
        output: { type: 'error-text', value: `${'line\n'.repeat(1_000)}` },
        metadata: { exitCode: 1 },
      },
      { excerptChars: 10 },
    );
    expect(part.output.type).toBe('error-text');
    expect(part.metadata).toEqual({ exitCode: 1 });
    expect(part.output.value).toMatch(
      /^\[tool output projected: run_command failed; 5,000 characters, sha256 [0-9a-f]{16}; the first 10 follow\]\nline\nline\n\n\[… 4,990 characters left out/,
    );
  });
});
