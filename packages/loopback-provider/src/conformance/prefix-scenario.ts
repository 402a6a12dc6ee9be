import {
  createInstructionSnapshot,
  runAgent,
  type EventEnvelope,
  type ModelAdapter,
  type RunResult,
  type Tool,
  type Usage,
} from '@forge/core';
import { expect } from 'vitest';
import { comparePrefix } from '../request-prefix.js';
import { turn, type RecordedRequest, type TurnReply } from '../replies.js';
import type { LoopbackProvider } from '../server.js';
import { allowAll, noteTool } from './fixtures.js';

/** Instructions long enough (well over 1,024 tokens) for a provider to cache their prefix. */
const CACHEABLE_INSTRUCTIONS = createInstructionSnapshot(
  Array.from(
    { length: 120 },
    (_, index) =>
      `Rule ${index + 1}: keep every change small, read a file before editing it, and say what you did not do.`,
  ).join('\n'),
);

const listNotesTool: Tool = {
  name: 'list_notes',
  description: 'Lists the notes.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  risk: 'read',
  execute: async () => ({ output: { type: 'text', value: 'alpha, beta' } }),
};

/** The two steps of a turn that reads one note (reasoning, then the call) and answers from it. */
function readNoteThenAnswer(
  turnNumber: number,
  reasoning: string,
  note: string,
  answer: string,
  answerTokens: number,
): TurnReply[] {
  return [
    turn({
      reasoning,
      encryptedReasoning: `enc-prefix-${turnNumber}`,
      toolCalls: [{ name: 'read_note', arguments: { name: note }, callId: `call_prefix_${turnNumber}` }],
      usage: { inputTokens: 0, outputTokens: 20 },
    }),
    turn({ text: answer, usage: { inputTokens: 0, outputTokens: answerTokens } }),
  ];
}

/**
 * Two turns of one conversation through `runAgent`, the way a session sends them: each turn makes
 * a tool call (reasoning, call, result) and then answers; the second turn's history is the first.
 * The server records four requests: two steps per turn. `steps` is the usage each step reported.
 */
export async function runTwoTurns(
  server: LoopbackProvider,
  model: ModelAdapter,
): Promise<{ readonly runs: readonly RunResult[]; readonly steps: readonly Usage[] }> {
  server.enqueue(
    ...readNoteThenAnswer(1, 'Read the note first.', 'alpha', 'The sky is green.', 8),
    ...readNoteThenAnswer(2, 'Again.', 'beta', 'Still green.', 6),
  );
  const steps: Usage[] = [];
  const onEvent = ({ event }: EventEnvelope) => {
    if (event.type === 'model.step.completed') steps.push(event.usage);
  };
  const common = {
    model,
    instructions: CACHEABLE_INSTRUCTIONS,
    approvals: allowAll,
    session: { id: 'prefix-session' },
    onEvent,
  } as const;
  // The host lists its tools in another order on the second turn (as MCP servers that start in a different order would).
  const first = await runAgent({ ...common, request: 'What does note alpha say?', tools: [noteTool(), listNotesTool] });
  const second = await runAgent({
    ...common,
    request: 'And note beta?',
    tools: [listNotesTool, noteTool()],
    session: { ...common.session, history: { messages: first.messages } },
  });
  return { runs: [first, second], steps };
}

/**
 * Every request of a conversation (`server.requests`, or those of one session among others)
 * starts with the whole of the one before it, byte for byte, and adds to it: within a turn (after
 * a tool call) and across the turn boundary. Names the first part that changed when one did.
 */
export function expectRequestsExtendEachOther(requests: readonly RecordedRequest[]): void {
  expect(requests.length).toBeGreaterThanOrEqual(2);
  for (let index = 1; index < requests.length; index += 1) {
    const earlier = requests[index - 1];
    const later = requests[index];
    if (earlier === undefined || later === undefined) continue;
    const comparison = comparePrefix(earlier, later);
    // comparePrefix names a first difference exactly when the later request does not extend the earlier.
    expect(comparison.firstDifference, `request ${index + 1} changed what request ${index} sent`).toBeUndefined();
  }
}
