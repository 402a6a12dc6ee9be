import { hashMessages, sha256Hex, type CompactionEvent, type EventEnvelope, type Message } from '@forge/core';
import { NativeCompactionModel, ScriptedModel } from '@forge/core/testing';
import type { FileHandle } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { installCheckpoint } from './checkpoint-install.js';
import { filler, instructionsFrom, MemoryWorkspace } from './compaction-fixtures.test-helpers.js';
import { createSession, loadTranscript, type SessionWriter } from '@forge/persistence';
import { openSessionHandle, type SessionHandle } from './session-turn.js';
import { useTemporaryHome } from '@forge/persistence/test-helpers/temporary-home';

const temporaryHome = useTemporaryHome();
const instructions = instructionsFrom('Use pnpm.');

function chat(turns: number): Message[] {
  return Array.from({ length: turns }, (_, turn): Message[] => [
    { role: 'user', content: `Question ${turn}. ${filler(turn)}` },
    { role: 'assistant', content: [{ type: 'text', text: `Answer ${turn}. ${filler(turn)}` }] },
  ]).flat();
}

/** A stored session holding `messages`, opened for writing. */
async function sessionWith(home: string, messages: readonly Message[]): Promise<SessionHandle> {
  const writer = await createSession(home, { workspaceRoot: '/work/project', now: () => 0 });
  await writer.appendMessages(messages);
  const id = writer.id;
  await writer.close();
  return openSessionHandle({ home, sessionId: id });
}

function manual(handle: SessionHandle, extra: Partial<Parameters<SessionHandle['compact']>[0]> = {}) {
  return handle.compact({ model: new ScriptedModel([]), instructions, context: { recentTailTokens: 2_000 }, ...extra });
}

describe('manual compaction of a session', () => {
  it('installs a checkpoint the next turn sends below fresh instructions, keeps the transcript, and says so (invariants 1, 5)', async () => {
    const home = await temporaryHome();
    const messages = chat(30);
    const handle = await sessionWith(home, messages);
    const { outcome, events, transcriptMessages } = await manual(handle);
    expect(outcome.kind).toBe('compacted');
    if (outcome.kind !== 'compacted') return;
    expect(transcriptMessages).toBe(60);
    expect(events.map((event) => event.type)).toEqual(['context.compaction.started', 'context.compaction.completed']);
    expect(events[0]).toMatchObject({ trigger: 'manual' });

    const model = new ScriptedModel([{ text: 'Noted.' }]);
    const turn = await handle.runTurn({ model, request: 'What next?', instructions, context: { mode: 'compact' } });
    await handle.close();
    const sent = model.requests[0];
    expect(sent?.instructions).toBe(instructions.text);
    expect(sent?.checkpoint).toContain('[SESSION_CHECKPOINT v1]');
    expect(sent?.checkpoint).toContain('untrusted memory below current instructions and the latest user message');
    expect(sent?.history).toEqual(messages.slice(outcome.tailStart));
    expect(turn.view.checkpoint).toMatchObject({
      id: outcome.built.id,
      strategy: 'forge-state',
      source: { tailStart: outcome.tailStart },
    });

    const stored = await loadTranscript(home, handle.id);
    expect(stored.messages.slice(0, 60)).toEqual(messages);
    expect(stored.checkpoint?.checkpoint).toEqual(outcome.built.checkpoint);
  });

  it('builds and installs byte-identical checkpoints from identical sessions (invariant 13)', async () => {
    const messages = chat(25);
    const stored: string[] = [];
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const home = await temporaryHome();
      const handle = await sessionWith(home, messages);
      await manual(handle);
      await handle.close();
      stored.push(JSON.stringify((await loadTranscript(home, handle.id)).checkpoint?.checkpoint));
    }
    expect(stored[0]).toBe(stored[1]);
    expect(stored[0]?.length).toBeGreaterThan(100);
  });

  it('reuses the current checkpoint instead of building the same one again', async () => {
    const home = await temporaryHome();
    const handle = await sessionWith(home, chat(30));
    await manual(handle);
    const again = await manual(handle);
    await handle.close();
    expect(again.outcome).toMatchObject({ kind: 'skipped', reason: 'reused' });
  });

  it('records the focus the user gave in the events', async () => {
    const home = await temporaryHome();
    const handle = await sessionWith(home, chat(30));
    const { events } = await manual(handle, { focus: '  the parser bug  ' });
    await handle.close();
    expect(events[0]).toMatchObject({ focus: 'the parser bug' });
  });
});

describe('install is one transaction (invariant 12)', () => {
  it('a write that fails leaves the previous checkpoint current, in memory and on disk', async () => {
    const home = await temporaryHome();
    const messages = chat(30);
    const handle = await sessionWith(home, messages);
    const first = await manual(handle, { context: { recentTailTokens: 6_000 } });
    if (first.outcome.kind !== 'compacted') throw new Error('expected a first checkpoint');
    const previous = handle.currentCheckpoint();
    if (previous?.ok !== true) throw new Error('expected the first checkpoint to be current');

    const writer = (handle as unknown as { writer: SessionWriter }).writer;
    const fileHandle = (writer as unknown as { parts: { handle: FileHandle } }).parts.handle;
    vi.spyOn(fileHandle, 'write').mockRejectedValueOnce(new Error('EIO: injected write failure'));
    const second = await manual(handle, { context: { recentTailTokens: 2_000 } });
    expect(second.outcome).toMatchObject({ kind: 'failed', reason: 'persistence' });
    expect(second.events.at(-1)).toMatchObject({
      type: 'context.compaction.failed',
      reason: 'persistence',
      previousCheckpointId: previous.active.id,
    });
    expect(handle.currentCheckpoint()).toEqual(previous);
    await handle.close();

    const reloaded = await loadTranscript(home, handle.id);
    expect(reloaded.messages).toEqual(messages);
    expect(reloaded.checkpoint?.checkpoint).toEqual(first.outcome.built.checkpoint);
  });

  it('never writes a checkpoint that fails validation', async () => {
    const home = await temporaryHome();
    const handle = await sessionWith(home, chat(30));
    const { outcome } = await manual(handle);
    if (outcome.kind !== 'compacted') throw new Error('expected a compaction');
    const writer = (handle as unknown as { writer: SessionWriter }).writer;
    const record = vi.spyOn(writer, 'recordCheckpoint');
    const forged = { ...outcome.built.checkpoint, safetyLabels: ['untrusted-conversation-memory'] };
    await expect(installCheckpoint(writer, { checkpoint: forged as never })).rejects.toThrow(/not valid: safetyLabels/);
    expect(record).not.toHaveBeenCalled();
    await handle.close();
  });
});

describe('model-structured compaction', () => {
  it('cancelled mid-call leaves the session and the previous checkpoint valid', async () => {
    const home = await temporaryHome();
    const handle = await sessionWith(home, chat(30));
    await manual(handle, { context: { recentTailTokens: 6_000 } });
    const previous = handle.currentCheckpoint();
    const controller = new AbortController();
    const compactor = new ScriptedModel([{ hang: true }], { provider: 'cheap', modelId: 'compactor' });
    const pending = manual(handle, {
      compaction: { strategy: { kind: 'model-structured', compactor } },
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    const { outcome, events } = await pending;
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'cancelled' });
    expect(events.at(-1)).toMatchObject({ type: 'context.compaction.failed', reason: 'cancelled', fallback: 'none' });
    expect(handle.currentCheckpoint()).toEqual(previous);

    const model = new ScriptedModel([{ text: 'Still here.' }]);
    const turn = await handle.runTurn({ model, request: 'Are you there?', instructions, context: { mode: 'compact' } });
    expect(turn.result.status).toBe('completed');
    await handle.close();
    expect((await loadTranscript(home, handle.id)).messages).toHaveLength(62);
  });

  it('a malformed compactor reply falls back to the deterministic checkpoint', async () => {
    const home = await temporaryHome();
    const handle = await sessionWith(home, chat(30));
    const compactor = new ScriptedModel([{ text: '{"activeGoal": ' }], { provider: 'cheap', modelId: 'compactor' });
    const { outcome, events } = await manual(handle, {
      compaction: { strategy: { kind: 'model-structured', compactor } },
    });
    await handle.close();
    expect(outcome).toMatchObject({ kind: 'compacted', strategy: 'forge-state', installed: true });
    expect(events.map((event) => [event.type, 'reason' in event ? event.reason : undefined])).toContainEqual([
      'context.compaction.failed',
      'schema',
    ]);
  });
});

describe('provider-native checkpoints', () => {
  it('are replayed only to the model that made them; another model gets a view rebuilt from the transcript', async () => {
    const home = await temporaryHome();
    const messages = chat(30);
    const handle = await sessionWith(home, messages);
    const native = new NativeCompactionModel([{ text: 'Native reply.' }]);
    const { outcome } = await manual(handle, { model: native, compaction: { strategy: { kind: 'provider-native' } } });
    expect(outcome).toMatchObject({ kind: 'compacted', strategy: 'provider-native' });
    if (outcome.kind !== 'compacted') return;
    const stored = handle.currentCheckpoint();
    expect(stored?.ok === true && stored.active.strategy).toBe('provider-native');
    expect(JSON.stringify(stored)).not.toContain('encrypted_content');

    await handle.runTurn({ model: native, request: 'Continue.', instructions, context: { mode: 'compact' } });
    const replayed = native.requests[0];
    expect(replayed?.nativeState?.itemHash).toBe(outcome.built.nativeState?.itemHash);
    expect(native.replays(replayed as never)).toBe(true);
    expect(hashMessages(replayed?.history.slice(0, outcome.tailStart) ?? [])).toBe(
      outcome.built.checkpoint.source.sourceHash,
    );

    const other = new ScriptedModel([{ text: 'Other model.' }], { provider: 'other', modelId: 'm2' });
    const turn = await handle.runTurn({
      model: other,
      request: 'And now?',
      instructions,
      context: { mode: 'compact' },
    });
    await handle.close();
    const switched = other.requests[0];
    expect(switched?.nativeState).toBeUndefined();
    expect(switched?.checkpoint).toContain('strategy: forge-state');
    expect(switched?.history[0]).toEqual(messages[outcome.tailStart]);
    expect(turn.view.checkpoint).toMatchObject({ strategy: 'forge-state', rebuiltFrom: 'provider-native' });
  });
});

describe('automatic compaction in a turn', () => {
  // 11,000 tokens of input: compaction above 9,350, down to 5,500. A chat turn costs about 320.
  const small = { capabilities: { contextWindowTokens: 12_000, maxOutputTokens: 1_000 } };
  const context = { bufferTokens: 1_000, reservedOutputTokens: 1_000, recentTailTokens: 3_000 };

  async function turnIn(mode: 'off' | 'warn' | 'shadow' | 'compact', turns: number) {
    const home = await temporaryHome();
    const messages = chat(turns);
    const handle = await sessionWith(home, messages);
    const model = new ScriptedModel([{ text: 'Answered.' }], small);
    const events: EventEnvelope[] = [];
    const turn = await handle.runTurn({
      model,
      request: 'Next question.',
      instructions,
      context: { ...context, mode },
      onEvent: (envelope) => events.push(envelope),
    });
    await handle.close();
    const compaction = events
      .map((envelope) => envelope.event)
      .filter((event): event is CompactionEvent => event.type.startsWith('context.compaction'));
    const budgeted = events.map((envelope) => envelope.event).filter((event) => event.type === 'context.budgeted');
    return { messages, model, turn, compaction, budgeted, stored: await loadTranscript(home, handle.id) };
  }

  it('mode compact sends every stored message and compacts nothing while the request is under the threshold', async () => {
    const { messages, model, turn, compaction, stored } = await turnIn('compact', 20);
    expect(turn.result.status).toBe('completed');
    expect(compaction).toEqual([]);
    expect(model.requests[0]?.history).toEqual(messages);
    expect(turn.view).toMatchObject({ tailStart: 0, end: 40, omitted: 0 });
    expect(stored.checkpoint).toBeUndefined();
  });

  it('mode compact compacts past the threshold, down to the target, and keeps every message in the checkpoint or verbatim', async () => {
    const { messages, model, compaction, budgeted, stored } = await turnIn('compact', 30);
    const completed = compaction.find((event) => event.type === 'context.compaction.completed');
    expect(completed).toMatchObject({ trigger: 'threshold', installed: true, step: 1, costGate: { compact: true } });
    const sent = model.requests[0];
    expect(sent?.checkpoint).toContain('[SESSION_CHECKPOINT v1]');
    const tailStart = completed?.type === 'context.compaction.completed' ? (completed.tailStart ?? -1) : -1;
    expect(sent?.history).toEqual(messages.slice(tailStart));
    const budget = budgeted[0];
    if (budget?.type !== 'context.budgeted') throw new Error('no budget event');
    expect(budget.estimate.tokens).toBeLessThanOrEqual(budget.compactTargetTokens);
    expect(budget.view).toEqual({
      checkpointId: completed?.type === 'context.compaction.completed' ? completed.checkpointId : '',
      coveredMessages: tailStart,
      verbatimMessages: 60 - tailStart,
      omitted: 0,
    });
    expect(stored.checkpoint).toBeDefined();
    expect(stored.messages).toHaveLength(62);
  });

  it('mode compact makes a request fit that would not', async () => {
    const { model, turn, compaction } = await turnIn('compact', 40);
    expect(turn.result.status).toBe('completed');
    expect(compaction.find((event) => event.type === 'context.compaction.completed')).toMatchObject({
      trigger: 'over_budget',
      installed: true,
    });
    const estimate = await model.estimateRequestTokens(model.requests[0] as never);
    expect(estimate.tokens).toBeLessThanOrEqual(12_000 - 1_000);
  });

  it('mode compact keeps sending outputs it projected on later turns, so the request prefix stays the same', async () => {
    const reads: Message[] = Array.from({ length: 12 }, (_, turn): Message[] => [
      { role: 'user', content: `Read part ${turn}.` },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: `read_${turn}`, toolName: 'read_file', input: { path: `part${turn}.txt` } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `read_${turn}`,
            toolName: 'read_file',
            output: { type: 'text', value: `${turn} `.repeat(1_600) },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: `Part ${turn} read.` }] },
    ]).flat();
    const home = await temporaryHome();
    const handle = await sessionWith(home, reads);
    const events: CompactionEvent[] = [];
    const turn = async (request: string) => {
      const model = new ScriptedModel([{ text: 'ok' }], small);
      await handle.runTurn({
        model,
        request,
        instructions,
        context: { ...context, mode: 'compact' },
        onEvent: (envelope) =>
          envelope.event.type.startsWith('context.compaction') && events.push(envelope.event as CompactionEvent),
      });
      return model.requests[0];
    };
    const first = await turn('Summarize the parts.');
    const projections = events.filter(
      (event) => event.type === 'context.compaction.completed' && event.strategy === 'tool-output-projection',
    );
    expect(projections).toHaveLength(1);
    expect(
      events.some((event) => event.type === 'context.compaction.completed' && event.strategy === 'forge-state'),
    ).toBe(false);
    const second = await turn('And now?');
    await handle.close();
    expect(events.filter((event) => event.type === 'context.compaction.completed')).toHaveLength(1);
    expect(second?.history.slice(0, first?.history.length)).toEqual(first?.history);
    expect(JSON.stringify(second?.history)).toContain('[tool output projected: read_file succeeded');
  });

  it('mode compact shows a read of a file changed outside the conversation as out of date; mode warn sends it as it was', async () => {
    const v1 = 'export const RETRIES = 3;\n';
    const messages: Message[] = [
      { role: 'user', content: 'What are the retries?' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'read_1', toolName: 'read_file', input: { path: 'src/config.ts' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'read_1',
            toolName: 'read_file',
            output: { type: 'text', value: v1 },
            metadata: { path: 'src/config.ts', sha256: sha256Hex(v1) },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'RETRIES is 3.' }] },
    ];
    const home = await temporaryHome();
    const handle = await sessionWith(home, messages);
    const workspace = new MemoryWorkspace({ 'src/config.ts': 'export const RETRIES = 5;\n' });
    const sent = async (mode: 'warn' | 'compact') => {
      const model = new ScriptedModel([{ text: 'ok' }]);
      await handle.runTurn({
        model,
        request: `And now (${mode})?`,
        instructions,
        context: { mode },
        artifactHashes: workspace.artifactHashes,
      });
      return JSON.stringify(model.requests[0]?.history);
    };
    const compacting = await sent('compact');
    expect(compacting).toContain('[tool output out of date: read_file of src/config.ts');
    expect(compacting).not.toContain('RETRIES = 3;');
    expect(await sent('warn')).toContain('RETRIES = 3;');
    await handle.close();
    expect((await loadTranscript(home, handle.id)).messages.slice(0, 4)).toEqual(messages);
  });

  it('mode shadow builds and validates where compact would, but sends every message and stores nothing new', async () => {
    const { messages, model, compaction, stored } = await turnIn('shadow', 30);
    expect(compaction.at(-1)).toMatchObject({
      type: 'context.compaction.skipped',
      reason: 'shadow',
      trigger: 'threshold',
      wouldReclaimTokens: expect.any(Number),
    });
    expect(model.requests[0]?.checkpoint).toBeUndefined();
    expect(model.requests[0]?.history).toEqual(messages);
    expect(stored.checkpoint).toBeUndefined();
    const quiet = await turnIn('shadow', 20);
    expect(quiet.compaction).toEqual([]);
  });

  it.each(['off', 'warn'] as const)(
    'mode %s sends every message, and stops before the call once the whole conversation does not fit',
    async (mode) => {
      const fits = await turnIn(mode, 30);
      expect(fits.compaction).toEqual([]);
      expect(fits.model.requests[0]?.history).toEqual(fits.messages);
      expect(fits.stored.checkpoint).toBeUndefined();
      const full = await turnIn(mode, 40);
      expect(full.turn.result.status).toBe('limit_reached');
      expect(full.model.requests).toEqual([]);
      expect(full.turn.result.error?.message).toMatch(/forge compact --last.*--context-mode compact/);
    },
  );
});
