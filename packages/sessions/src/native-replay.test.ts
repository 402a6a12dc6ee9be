import { join } from 'node:path';
import { readdir } from 'node:fs/promises';
import { ForgeError, RateLimitError, type Message } from '@forge/core';
import { NativeCompactionModel, ScriptedModel } from '@forge/core/testing';
import { describe, expect, it } from 'vitest';
import { filler, instructionsFrom } from './compaction-fixtures.test-helpers.js';
import { MAIN_LANE, OpaqueStateStore, refusesReplay, createSession } from '@forge/persistence';
import { openSessionHandle, type SessionHandle } from './session-turn.js';
import { useTemporaryHome } from '@forge/persistence/test-helpers/temporary-home';

/*
 * Provider-native state through a session's life: chained from the previous boundary, kept on disk
 * for the next process, dropped when another strategy makes the next boundary or when the provider
 * refuses to replay it, and kept when a request goes to another model.
 */

const temporaryHome = useTemporaryHome();
const instructions = instructionsFrom('Use pnpm.');
const native = { provider: 'native', modelId: 'native-model' };
const nativeCompaction = { strategy: { kind: 'provider-native' as const } };

function chat(turns: number, from = 0): Message[] {
  return Array.from({ length: turns }, (_, index): Message[] => [
    { role: 'user', content: `Question ${from + index}. ${filler(from + index)}` },
    { role: 'assistant', content: [{ type: 'text', text: `Answer ${from + index}. ${filler(from + index)}` }] },
  ]).flat();
}

async function sessionWith(home: string, messages: readonly Message[]): Promise<string> {
  const writer = await createSession(home, { workspaceRoot: '/work/project', now: () => 0 });
  await writer.appendMessages(messages);
  await writer.close();
  return writer.id;
}

const storeIn = (home: string) =>
  new OpaqueStateStore({ directory: join(home, 'state', 'native-compaction'), persist: true });

function compact(
  handle: SessionHandle,
  model: NativeCompactionModel | ScriptedModel,
  store: OpaqueStateStore,
  strategy: 'provider-native' | 'forge-state' = 'provider-native',
) {
  return handle.compact({
    model,
    instructions,
    context: { recentTailTokens: 2_000 },
    compaction: { strategy: { kind: strategy }, opaqueStates: store },
  });
}

describe('provider-native state of a session', () => {
  it('chains the next compaction from the previous item, and a new process replays the latest one', async () => {
    const home = await temporaryHome();
    const id = await sessionWith(home, chat(30));
    const handle = await openSessionHandle({ home, sessionId: id });
    const model = new NativeCompactionModel(Array.from({ length: 12 }, () => ({ text: `Reply. ${filler(7)}` })));
    const first = await compact(handle, model, storeIn(home));
    expect(first.outcome).toMatchObject({ kind: 'compacted', strategy: 'provider-native' });
    for (let turn = 0; turn < 12; turn += 1) {
      await handle.runTurn({
        model,
        request: `More ${turn}. ${filler(turn)}`,
        instructions,
        context: { mode: 'compact' },
        compaction: { ...nativeCompaction, opaqueStates: storeIn(home) },
      });
    }
    const second = await compact(handle, model, storeIn(home));
    await handle.close();
    expect(second.outcome).toMatchObject({ kind: 'compacted', strategy: 'provider-native' });
    if (first.outcome.kind !== 'compacted' || second.outcome.kind !== 'compacted') return;
    const firstState = first.outcome.built.nativeState;
    const chained = model.compactions[1];
    expect(chained?.previous?.itemHash).toBe(firstState?.itemHash);
    // Only the messages after what the previous item stands for are sent again.
    expect(chained?.messages.length).toBe(second.outcome.tailStart - (firstState?.sourceMessages ?? 0));
    expect(second.outcome.built.nativeState).toMatchObject({
      previousItemHash: firstState?.itemHash,
      sourceMessages: second.outcome.tailStart,
    });

    const decision = await storeIn(home).forReplay({ sessionId: id, lane: MAIN_LANE }, native);
    expect(decision.kind === 'replay' && decision.state.itemHash).toBe(second.outcome.built.nativeState?.itemHash);
    const next = await openSessionHandle({ home, sessionId: id });
    const later = new NativeCompactionModel([{ text: 'Replayed.' }]);
    await next.runTurn({
      model: later,
      request: 'Go on.',
      instructions,
      context: { mode: 'compact' },
      compaction: { ...nativeCompaction, opaqueStates: storeIn(home) },
    });
    await next.close();
    expect(later.requests[0]?.nativeState?.itemHash).toBe(second.outcome.built.nativeState?.itemHash);
    expect(later.replays(later.requests[0] as never)).toBe(true);
  });

  it('is dropped when another strategy makes the next boundary', async () => {
    const home = await temporaryHome();
    const id = await sessionWith(home, chat(30));
    const handle = await openSessionHandle({ home, sessionId: id });
    const model = new NativeCompactionModel(Array.from({ length: 12 }, () => ({ text: `Reply. ${filler(3)}` })));
    await compact(handle, model, storeIn(home));
    expect(await readdir(join(home, 'state', 'native-compaction', id))).toEqual(['main.json']);
    for (let turn = 0; turn < 12; turn += 1)
      await handle.runTurn({
        model,
        request: `More ${turn}. ${filler(turn)}`,
        instructions,
        context: { mode: 'compact' },
      });
    const deterministic = await compact(handle, model, storeIn(home), 'forge-state');
    await handle.close();
    expect(deterministic.outcome).toMatchObject({ kind: 'compacted', strategy: 'forge-state' });
    expect(await readdir(join(home, 'state', 'native-compaction', id))).toEqual([]);
  });

  it('is discarded when the provider refuses its replay, so the next request sends the portable checkpoint', async () => {
    const home = await temporaryHome();
    const id = await sessionWith(home, chat(30));
    const handle = await openSessionHandle({ home, sessionId: id });
    const maker = new NativeCompactionModel();
    await compact(handle, maker, storeIn(home));
    await handle.close();

    const refused = new ForgeError({
      code: 'provider_rejected',
      message: 'The encrypted content of a compaction item could not be verified.',
      isRetryable: false,
    });
    const model = new NativeCompactionModel([{ error: refused }, { text: 'Fine without it.' }]);
    const next = await openSessionHandle({ home, sessionId: id });
    const failed = await next.runTurn({
      model,
      request: 'Continue.',
      instructions,
      context: { mode: 'compact' },
      compaction: { ...nativeCompaction, opaqueStates: storeIn(home) },
    });
    expect(failed.result.status).toBe('failed');
    expect(model.requests[0]?.nativeState).toBeDefined();
    expect(await storeIn(home).forReplay({ sessionId: id, lane: MAIN_LANE }, native)).toEqual({ kind: 'none' });

    await next.runTurn({
      model,
      request: 'Try again.',
      instructions,
      context: { mode: 'compact' },
      compaction: { ...nativeCompaction, opaqueStates: storeIn(home) },
    });
    await next.close();
    expect(model.requests[1]?.nativeState).toBeUndefined();
    expect(model.requests[1]?.checkpoint).toContain('[SESSION_CHECKPOINT v1]');
  });

  it('is kept when a request goes to another model, and when a failure is transient', async () => {
    const home = await temporaryHome();
    const id = await sessionWith(home, chat(30));
    const handle = await openSessionHandle({ home, sessionId: id });
    await compact(handle, new NativeCompactionModel(), storeIn(home));
    const other = new ScriptedModel([{ text: 'Other model.' }], { provider: 'other', modelId: 'm2' });
    await handle.runTurn({
      model: other,
      request: 'And now?',
      instructions,
      context: { mode: 'compact' },
      compaction: { ...nativeCompaction, opaqueStates: storeIn(home) },
    });
    const busy = new NativeCompactionModel([{ error: new RateLimitError({ message: 'slow down' }) }]);
    await handle.runTurn({
      model: busy,
      request: 'Again?',
      instructions,
      context: { mode: 'compact' },
      compaction: { ...nativeCompaction, opaqueStates: storeIn(home) },
    });
    await handle.close();
    expect(other.requests[0]?.nativeState).toBeUndefined();
    expect(busy.requests.length).toBeGreaterThan(0);
    expect((await storeIn(home).forReplay({ sessionId: id, lane: MAIN_LANE }, native)).kind).toBe('replay');
  });

  it('counts only refusals of the provider as condemning the state', () => {
    expect(refusesReplay({ code: 'provider_rejected', message: 'no', isRetryable: false })).toBe(true);
    expect(refusesReplay({ code: 'context_overflow', message: 'long', isRetryable: false })).toBe(true);
    for (const code of ['cancelled', 'auth', 'unexpected'])
      expect(refusesReplay({ code, message: code, isRetryable: false })).toBe(false);
    expect(refusesReplay({ code: 'rate_limited', message: 'slow', isRetryable: true })).toBe(false);
  });
});
