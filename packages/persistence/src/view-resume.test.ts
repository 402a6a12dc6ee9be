import { createId, runAgent, type Message } from '@forge/core';
import { selectRecentTail } from '@forge/core/view';
import { ScriptedModel } from '@forge/core/testing';
import { describe, expect, it } from 'vitest';
import { createSession, openSession } from './session-open.js';
import { loadTranscript } from './session-read.js';
import { useTemporaryHome } from './temporary-home.test-helpers.js';
import { createTraceWriter } from './trace-writer.js';

const temporaryHome = useTemporaryHome();
const countTokens = (message: Message) => Math.ceil(JSON.stringify(message).length / 4);
const counts = (messages: readonly Message[]) => messages.map(countTokens);

/** Turns with reasoning, parallel tool calls and split results, like a real agent session. */
function longTranscript(turns: number): Message[] {
  const messages: Message[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push({ role: 'user', content: `Request ${turn}: ${'details '.repeat(turn % 7)}` });
    if (turn % 3 !== 0) messages.push({ role: 'assistant', content: [{ type: 'reasoning', text: `plan ${turn}` }] });
    const calls = turn % 4;
    if (calls > 0) {
      messages.push({
        role: 'assistant',
        content: Array.from({ length: calls }, (_, call) => ({
          type: 'tool-call' as const,
          toolCallId: `c${turn}_${call}`,
          toolName: 'read_file',
          input: { path: `f${call}` },
        })),
      });
      for (let call = 0; call < calls; call += 1) {
        messages.push({
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: `c${turn}_${call}`,
              toolName: 'read_file',
              output: { type: 'text', value: 'x'.repeat(40 * call) },
            },
          ],
        });
      }
    }
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `Answer ${turn}` }] });
  }
  return messages;
}

describe('the active view across resume', () => {
  it('selects the same tail after closing and reopening, and selection never changes the transcript', async () => {
    const home = await temporaryHome();
    const transcript = longTranscript(30);
    const writer = await createSession(home, { workspaceRoot: '/w' });
    for (let start = 0; start < transcript.length; start += 7)
      await writer.appendMessages(transcript.slice(start, start + 7));
    const budgets = [0, 10, 55, 120, 400, 1000, 5000, Number.POSITIVE_INFINITY];
    const before = budgets.map((budgetTokens) =>
      selectRecentTail(writer.messages, { budgetTokens, messageTokens: counts(writer.messages) }),
    );
    await writer.close();

    const loaded = await loadTranscript(home, writer.id);
    const reopened = await openSession(home, writer.id);
    for (const [position, budgetTokens] of budgets.entries()) {
      expect(selectRecentTail(loaded.messages, { budgetTokens, messageTokens: counts(loaded.messages) })).toBe(
        before[position],
      );
      expect(selectRecentTail(reopened.messages, { budgetTokens, messageTokens: counts(reopened.messages) })).toBe(
        before[position],
      );
    }
    await reopened.close();
    expect((await loadTranscript(home, writer.id)).messages).toEqual(transcript);
    expect(before).toEqual([...before].sort((left, right) => right - left));
  });
});

describe('a session across two runs and a restart', () => {
  it('stores each run and feeds the recent view of the stored transcript to the next run', async () => {
    const home = await temporaryHome();
    const instructions = { text: 'You are Forge.', sources: [], hash: 'c'.repeat(64) };

    async function turn(sessionId: string | undefined, request: string, model: ScriptedModel): Promise<string> {
      const writer =
        sessionId === undefined
          ? await createSession(home, { workspaceRoot: '/w' })
          : await openSession(home, sessionId);
      const runId = createId('run');
      const trace = await createTraceWriter(home, runId);
      const history = writer.messages.slice(
        selectRecentTail(writer.messages, { budgetTokens: 1000, messageTokens: counts(writer.messages) }),
      );
      await writer.recordRunStart({ runId, model: { provider: model.provider, modelId: model.modelId } });
      const result = await runAgent({
        model,
        request,
        instructions,
        session: { id: writer.id, history: { messages: history } },
        runId,
        onEvent: trace.listener,
      });
      await writer.appendMessages(result.messages, { runId });
      await writer.recordRunEnd(result);
      await trace.close();
      await writer.close();
      return writer.id;
    }

    const first = new ScriptedModel([{ text: 'Noted: tabs, not spaces.' }]);
    const id = await turn(undefined, 'Remember: tabs, not spaces.', first);
    const second = new ScriptedModel([{ text: 'You asked for tabs.' }]);
    await turn(id, 'What did I ask for?', second);

    expect(second.requests[0]?.history).toEqual([
      { role: 'user', content: 'Remember: tabs, not spaces.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted: tabs, not spaces.' }] },
    ]);
    const loaded = await loadTranscript(home, id);
    expect(loaded.messages).toHaveLength(4);
    expect(loaded.runs.map((run) => [run.status, run.firstMessageIndex, run.instructionsHash])).toEqual([
      ['completed', 0, 'c'.repeat(64)],
      ['completed', 2, 'c'.repeat(64)],
    ]);
  });
});
