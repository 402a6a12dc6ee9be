import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthError,
  CancelledError,
  ContextOverflowError,
  ForgeError,
  InvalidInputError,
  isSafeId,
  RateLimitError,
  sha256Hex,
  TransportError,
  type JsonObject,
  type OpaqueProviderState,
} from '@forge/core';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAIN_LANE, OpaqueStateStore, shouldDiscardReplayedState } from './opaque-state-store.js';
import { stateFilePath } from './state-file.js';

function stateFor(modelId: string, encrypted: string, provider = 'openai'): OpaqueProviderState {
  const items: JsonObject[] = [
    {
      id: 'msg_u1',
      type: 'message',
      status: 'completed',
      role: 'user',
      content: [{ type: 'input_text', text: 'the build command is make ci' }],
    },
    { id: 'cmp_1', type: 'compaction', encrypted_content: encrypted },
  ];
  const serialized = JSON.stringify(items);
  return {
    provider,
    modelId,
    itemHash: sha256Hex(serialized),
    bytes: Buffer.byteLength(serialized),
    items,
    sourceHash: sha256Hex('source'),
    sourceMessages: 2,
    previousItemHash: null,
  };
}

const main = { sessionId: 'ses_1', lane: MAIN_LANE };
const subagent = { sessionId: 'ses_1', lane: 'sub_reviewer' };
const gpt = { provider: 'openai', modelId: 'gpt-5.1' };

describe('OpaqueStateStore', () => {
  let root: string;
  let directory: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'forge-opaque-'));
    directory = join(root, 'state', 'native-compaction');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('keeps state in memory only unless persistence is switched on', async () => {
    const store = new OpaqueStateStore({ directory });
    await store.save(main, stateFor('gpt-5.1', 'enc-1'));
    expect(await store.forReplay(main, gpt)).toMatchObject({ kind: 'replay' });
    await expect(stat(directory)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await new OpaqueStateStore({ directory }).forReplay(main, gpt)).toEqual({ kind: 'none' });
  });

  it('survives a process restart when persisted: a new store on the same directory replays it unchanged', async () => {
    const state = stateFor('gpt-5.1', 'enc-1');
    await new OpaqueStateStore({ directory, persist: true }).save(main, state);
    const restarted = new OpaqueStateStore({ directory, persist: true });
    expect(await restarted.forReplay(main, gpt)).toEqual({ kind: 'replay', state });
  });

  it('reloads an evicted conversation from disk', async () => {
    const store = new OpaqueStateStore({ directory, persist: true, maxMemoryEntries: 1 });
    await store.save(main, stateFor('gpt-5.1', 'enc-main'));
    await store.save({ sessionId: 'ses_2', lane: MAIN_LANE }, stateFor('gpt-5.1', 'enc-other'));
    const decision = await store.forReplay(main, gpt);
    expect(decision.kind === 'replay' && decision.state.items[1]).toMatchObject({ encrypted_content: 'enc-main' });
  });

  it('writes 0600 files in 0700 directories, atomically, leaving no temporary files', async () => {
    const store = new OpaqueStateStore({ directory, persist: true });
    await store.save(main, stateFor('gpt-5.1', 'enc-1'));
    await store.save(main, stateFor('gpt-5.1', 'enc-2'));
    const file = stateFilePath(directory, main);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(directory, 'ses_1'))).mode & 0o777).toBe(0o700);
    expect((await stat(directory)).mode & 0o777).toBe(0o700);
    expect(await readdir(join(directory, 'ses_1'))).toEqual(['main.json']);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      schemaVersion: 1,
      sessionId: 'ses_1',
      lane: 'main',
    });
  });

  it('refuses hostile ids before touching the file system', async () => {
    const store = new OpaqueStateStore({ directory, persist: true });
    for (const sessionId of ['../escape', 'a/b', '', 'x'.repeat(129), 'sp ace', 'dot.dot', 'ünï']) {
      await expect(store.save({ sessionId, lane: MAIN_LANE }, stateFor('gpt-5.1', 'e'))).rejects.toThrow(
        InvalidInputError,
      );
      await expect(store.forReplay({ sessionId: 'ses_1', lane: sessionId }, gpt)).rejects.toThrow(InvalidInputError);
    }
    await fc.assert(
      fc.asyncProperty(
        fc.string().filter((id) => !isSafeId(id)),
        async (lane) => {
          await expect(store.save({ sessionId: 'ses_1', lane }, stateFor('gpt-5.1', 'e'))).rejects.toThrow(
            InvalidInputError,
          );
        },
      ),
      { numRuns: 50 },
    );
    await expect(stat(directory)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('skips replay for another model or provider without clearing the state', async () => {
    const store = new OpaqueStateStore({ directory, persist: true });
    await store.save(main, stateFor('gpt-5.1', 'enc-1'));
    expect(await store.forReplay(main, { provider: 'openai', modelId: 'gpt-5.1-mini' })).toEqual({
      kind: 'skip',
      reason: 'other-model',
    });
    expect(await store.forReplay(main, { provider: 'deepseek', modelId: 'gpt-5.1' })).toEqual({
      kind: 'skip',
      reason: 'other-provider',
    });
    expect(await store.forReplay(main, gpt)).toMatchObject({ kind: 'replay' });
  });

  it('keeps lanes apart: a subagent neither replays nor clears the main conversation’s state', async () => {
    const store = new OpaqueStateStore({ directory, persist: true });
    await store.save(main, stateFor('gpt-5.1', 'enc-main'));
    expect(await store.forReplay(subagent, gpt)).toEqual({ kind: 'none' });
    expect(await store.beginBoundary(subagent, gpt)).toBeUndefined();
    await store.discard(subagent);
    await store.save(subagent, stateFor('gpt-5.1', 'enc-sub'));
    const decision = await new OpaqueStateStore({ directory, persist: true }).forReplay(main, gpt);
    expect(decision.kind === 'replay' && decision.state.items[1]).toMatchObject({ encrypted_content: 'enc-main' });
  });

  it('deletes the state when a replayed request failed upstream, on disk too', async () => {
    const store = new OpaqueStateStore({ directory, persist: true });
    await store.save(main, stateFor('gpt-5.1', 'enc-1'));
    await store.discard(main);
    expect(await store.forReplay(main, gpt)).toEqual({ kind: 'none' });
    expect(await new OpaqueStateStore({ directory, persist: true }).forReplay(main, gpt)).toEqual({ kind: 'none' });
  });

  it('hands the state over for chaining when a new boundary begins, and deletes it', async () => {
    const store = new OpaqueStateStore({ directory, persist: true });
    const state = stateFor('gpt-5.1', 'enc-1');
    await store.save(main, state);
    expect(await store.beginBoundary(main, gpt)).toEqual(state);
    expect(await new OpaqueStateStore({ directory, persist: true }).forReplay(main, gpt)).toEqual({ kind: 'none' });
    await store.save(main, stateFor('gpt-5.1', 'enc-2'));
    expect(await store.beginBoundary(main, { provider: 'openai', modelId: 'gpt-4.1' })).toBeUndefined();
    expect(await store.forReplay(main, gpt)).toEqual({ kind: 'none' });
  });

  it('forgets everything when native compaction is switched off', async () => {
    const store = new OpaqueStateStore({ directory, persist: true });
    await store.save(main, stateFor('gpt-5.1', 'enc-1'));
    await store.save({ sessionId: 'ses_2', lane: MAIN_LANE }, stateFor('gpt-5.1', 'enc-2'));
    await store.clearAll();
    expect(await store.forReplay(main, gpt)).toEqual({ kind: 'none' });
    await expect(stat(directory)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('neither keeps nor replays state above the size limit, and drops a file that was altered', async () => {
    const store = new OpaqueStateStore({ directory, persist: true, maxStateBytes: 200 });
    await store.save(main, stateFor('gpt-5.1', 'x'.repeat(300)));
    expect(await store.forReplay(main, gpt)).toEqual({ kind: 'none' });

    const roomy = new OpaqueStateStore({ directory, persist: true });
    await roomy.save(main, stateFor('gpt-5.1', 'enc-1'));
    const file = stateFilePath(directory, main);
    await writeFile(file, (await readFile(file, 'utf8')).replace('enc-1', 'enc-X'));
    expect(await new OpaqueStateStore({ directory, persist: true }).forReplay(main, gpt)).toEqual({ kind: 'none' });
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('does not read a state file larger than its limit and envelope allow, and names it', async () => {
    await new OpaqueStateStore({ directory, persist: true }).save(main, stateFor('gpt-5.1', 'enc-1'));
    const file = stateFilePath(directory, main);
    await writeFile(file, `${await readFile(file, 'utf8')}${' '.repeat(70 * 1024)}`);
    const small = new OpaqueStateStore({ directory, persist: true, maxStateBytes: 200 });
    await expect(small.forReplay(main, gpt)).rejects.toMatchObject({
      file,
      message: expect.stringMatching(
        /^\/.*\/main\.json: it is 70\.\d KiB, more than the 64\.2 KiB Forge reads of it\. Forge did not change the file/,
      ),
    });
    expect(await new OpaqueStateStore({ directory, persist: true }).forReplay(main, gpt)).toMatchObject({
      kind: 'replay',
    });
  });

  it('discards replayed state after a refusal, but not after a transient failure', () => {
    expect(
      shouldDiscardReplayedState(new ForgeError({ code: 'provider_rejected', message: 'invalid encrypted content' })),
    ).toBe(true);
    expect(shouldDiscardReplayedState(new ContextOverflowError({ message: 'too long' }))).toBe(true);
    for (const transient of [
      new CancelledError(),
      new RateLimitError({ message: 'slow' }),
      new TransportError({ message: 'cut' }),
      new AuthError({ message: 'key' }),
      new Error('bug'),
    ]) {
      expect(shouldDiscardReplayedState(transient)).toBe(false);
    }
  });
});
