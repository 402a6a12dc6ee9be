import type { ContextMode, Message } from '@forge/core';

import { ScriptedModel } from '@forge/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instructionsFrom } from './compaction-fixtures.test-helpers.js';
import { createSession } from '@forge/persistence';
import { openSessionHandle } from './session-turn.js';
import { useTemporaryHome } from '@forge/persistence/test-helpers/temporary-home';
import { type ContextBudgetedEvent, projectToolOutput } from '@forge/core/internals';

const temporaryHome = useTemporaryHome();
const instructions = instructionsFrom('Answer briefly.');

/** Completed turns: a question, sometimes a tool call with its result, an answer; sizes vary a lot. */
const sessionArbitrary = fc
  .array(
    fc.record({
      words: fc.integer({ min: 1, max: 400 }),
      tool: fc.boolean(),
      output: fc.integer({ min: 0, max: 3_000 }),
    }),
    { minLength: 0, maxLength: 30 },
  )
  .map((turns) =>
    turns.flatMap(({ words, tool, output }, turn): Message[] => {
      const messages: Message[] = [{ role: 'user', content: `Question ${turn}: ${'about the parser '.repeat(words)}` }];
      if (tool) {
        const toolCallId = `call_${turn}`;
        messages.push({
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId, toolName: 'read_file', input: { path: `src/f${turn}.ts` } }],
        });
        messages.push({
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId,
              toolName: 'read_file',
              output: { type: 'text', value: 'x'.repeat(output) },
            },
          ],
        });
      }
      messages.push({ role: 'assistant', content: [{ type: 'text', text: `Answer ${turn}.` }] });
      return messages;
    }),
  );

function isProjected(message: Message): boolean {
  return (
    message.role === 'tool' &&
    message.content.some(
      (part) => part.output.type !== 'json' && part.output.value.startsWith('[tool output projected: '),
    )
  );
}

function projected(message: Message | undefined): Message | undefined {
  return message?.role === 'tool'
    ? { ...message, content: message.content.map((part) => projectToolOutput(part)) }
    : message;
}

describe('the no-hole invariant through SessionHandle.runTurn', () => {
  it('every request carries every stored message, verbatim or inside its checkpoint, in every mode, window and tail budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        sessionArbitrary,
        fc.constantFrom<ContextMode>('off', 'warn', 'shadow', 'compact'),
        fc.integer({ min: 3_000, max: 80_000 }),
        fc.integer({ min: 0, max: 12_000 }),
        fc.option(fc.integer({ min: 0, max: 8_000 }), { nil: undefined }),
        async (stored, mode, window, recentTailTokens, manualTail) => {
          const home = await temporaryHome();
          const writer = await createSession(home, { workspaceRoot: '/w' });
          await writer.appendMessages(stored);
          await writer.close();
          const handle = await openSessionHandle({ home, sessionId: writer.id });
          try {
            const context = { mode, recentTailTokens, bufferTokens: 500, reservedOutputTokens: 500 };
            const model = new ScriptedModel([{ text: 'ok' }], {
              capabilities: { contextWindowTokens: window, maxOutputTokens: 500 },
            });
            if (manualTail !== undefined)
              await handle.compact({ model, instructions, context: { ...context, recentTailTokens: manualTail } });
            const budgets: ContextBudgetedEvent[] = [];
            const turn = await handle.runTurn({
              model,
              request: 'One more question.',
              instructions,
              context,
              onEvent: (envelope) => {
                if (envelope.event.type === 'context.budgeted') budgets.push(envelope.event);
              },
            });
            expect(turn.view.omitted).toBe(0);
            for (const budget of budgets) {
              expect(budget.view).toMatchObject({ omitted: 0 });
              expect((budget.view?.coveredMessages ?? 0) + (budget.view?.verbatimMessages ?? 0)).toBe(stored.length);
            }
            expect(model.requests.length).toBeLessThanOrEqual(budgets.length);
            model.requests.forEach((request, index) => {
              const covered = budgets[index]?.view?.coveredMessages ?? 0;
              if (mode !== 'compact') expect(covered).toBe(0);
              expect(request.checkpoint === undefined).toBe(covered === 0);
              const sent = [...stored.slice(0, covered), ...request.history];
              expect(sent).toHaveLength(stored.length);
              // Past the threshold, mode compact may send a long tool output projected: its hash, an excerpt and how to get the rest.
              sent.forEach((message, position) =>
                expect(message).toEqual(
                  mode === 'compact' && isProjected(message) ? projected(stored[position]) : stored[position],
                ),
              );
            });
            if (turn.result.status === 'limit_reached') expect(model.requests).toEqual([]);
          } finally {
            await handle.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
