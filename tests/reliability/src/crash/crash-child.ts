import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInstructionSnapshot, hashMessages, type ApprovalGate, type JsonValue, type Message } from '@forge/core';
import { buildForgeStateCheckpoint, validateCheckpoint, withRunIds } from '@forge/core/checkpoint';
import { createRedactor } from '@forge/core/redaction';

import { ScriptedModel } from '@forge/core/testing';
import { MAIN_LANE, OpaqueStateStore, openSession } from '@forge/persistence';
import { openSessionHandle } from '@forge/sessions';
import { ReadLedger, createReadFileTool } from '@forge/tools';
import { crashOpaqueState } from './crash-protocol.js';
import { seededRandom } from '../support/seeded-random.js';
import { checkpointHash } from '@forge/core/checkpoint';
import { selectTail } from '@forge/core/internals';

/*
 * Child process of the crash-safety suite (bundled with esbuild and started by the test). It
 * continues one session forever — a turn with a tool call through `SessionHandle.runTurn` (traces
 * written), then a checkpoint stored through `SessionWriter.recordCheckpoint` or made by the
 * session's own compaction (`SessionHandle.compact`), then opaque provider state persisted through
 * `OpaqueStateStore` — printing an acknowledgement after each
 * durable step (see crash-protocol.ts). The parent SIGKILLs it at a seeded random moment.
 */

const [homeArgument, sessionArgument, workspaceArgument, seedText] = process.argv.slice(2);
if (
  homeArgument === undefined ||
  sessionArgument === undefined ||
  workspaceArgument === undefined ||
  seedText === undefined
) {
  throw new Error('usage: crash-child <forge-home> <session-id> <workspace> <seed>');
}
const home: string = homeArgument;
const sessionId: string = sessionArgument;
const workspace: string = workspaceArgument;
const next = seededRandom(Number(seedText));
const redactor = createRedactor();
const instructions = createInstructionSnapshot('You are the crash-safety test agent.');
const allowAll: ApprovalGate = { check: async () => ({ kind: 'allow' }) };
const store = new OpaqueStateStore({ directory: join(home, 'state', 'native-compaction'), persist: true });
const sizes = [40, 800, 6_000, 40_000, 200_000];

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function acknowledge(messages: readonly Message[]): void {
  say(`messages ${messages.length} ${hashMessages(messages)}`);
}

function answerText(turn: number): string {
  const size = sizes[Math.floor(next() * sizes.length)] ?? 40;
  return `answer of turn ${turn}: `.padEnd(size, String.fromCharCode(97 + (turn % 26)));
}

async function runOneTurn(turn: number): Promise<void> {
  const handle = await openSessionHandle({ home, sessionId, redactor });
  try {
    acknowledge(handle.messages);
    const toolInput: JsonValue = { path: 'notes.txt' };
    const model = new ScriptedModel([
      () => {
        acknowledge(handle.messages);
        return {
          text: `Reading the notes for turn ${turn}.`,
          toolCalls: [
            { toolName: 'read_file', input: toolInput, toolCallId: `call_${randomBytes(8).toString('hex')}` },
          ],
        };
      },
      () => {
        acknowledge(handle.messages);
        return { text: answerText(turn), textChunks: 3 };
      },
    ]);
    await handle.runTurn({
      model,
      request: `Turn ${turn}: read notes.txt and answer. ${'context '.repeat(Math.floor(next() * 400))}`,
      instructions,
      tools: [createReadFileTool({ root: workspace, ledger: ReadLedger.fromTranscript(handle.messages) })],
      approvals: allowAll,
      context: { recentTailTokens: 6_000 },
    });
    acknowledge(handle.messages);
  } finally {
    await handle.close();
  }
}

async function storeCheckpoint(): Promise<void> {
  const writer = await openSession(home, sessionId, { redactor });
  try {
    const transcript = writer.transcript();
    const { tailStart } = selectTail(transcript.messages, {
      budgetTokens: 4_000,
      messageTokens: await new ScriptedModel([]).countMessageTokens(transcript.messages),
    });
    const checkpoint = buildForgeStateCheckpoint({
      transcript: withRunIds(transcript.messages, transcript.runs),
      tailStart,
      redact: redactor.redact,
    });
    const validation = validateCheckpoint(checkpoint, transcript.messages.length);
    if (!validation.ok) throw new Error(`the child built an invalid checkpoint: ${validation.errors.join('; ')}`);
    const hash = checkpointHash(checkpoint);
    say(`checkpoint-begin ${hash}`);
    await writer.recordCheckpoint({ source: checkpoint.source, checkpoint: checkpoint as unknown as JsonValue });
    say(`checkpoint ${hash}`);
  } finally {
    await writer.close();
  }
}

/** The session's own compaction between turns: validated, then recorded durably before it is current. */
async function compactSession(): Promise<void> {
  const handle = await openSessionHandle({ home, sessionId, redactor });
  try {
    say('checkpoint-begin *');
    const result = await handle.compact({
      model: new ScriptedModel([]),
      instructions,
      context: { recentTailTokens: 3_000 },
    });
    say(
      result.outcome.kind === 'compacted' && result.outcome.installed
        ? `checkpoint ${result.outcome.built.hash}`
        : 'checkpoint-skipped',
    );
  } finally {
    await handle.close();
  }
}

async function persistOpaqueState(cycle: number): Promise<void> {
  const state = crashOpaqueState(cycle, sizes[Math.floor(next() * sizes.length)] ?? 40);
  say(`opaque-begin ${state.itemHash}`);
  await store.save({ sessionId, lane: MAIN_LANE }, state);
  say(`opaque ${state.itemHash}`);
}

say('ready');
for (let cycle = Math.floor(next() * 1_000_000); ; cycle += 1) {
  await runOneTurn(cycle);
  if (cycle % 2 === 0) await storeCheckpoint();
  else await compactSession();
  await persistOpaqueState(cycle);
}
