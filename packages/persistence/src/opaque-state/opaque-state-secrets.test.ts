import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex, type JsonObject, type OpaqueProviderState } from '@forge/core';
import { createRedactor } from '@forge/core/redaction';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAIN_LANE, OpaqueStateStore } from './opaque-state-store.js';

/*
 * Regression: persisted opaque state was written exactly as the provider sent it, so a secret in a
 * retained user message (an API key pasted into the chat) reached `state/` in plain text — found by
 * the reliability suite's secret corpus. Such a state now stays in memory only.
 */

const openAiKey = `sk-proj-${'Q1w2E3r4'.repeat(6)}`;

function stateWith(text: string): OpaqueProviderState {
  const items: JsonObject[] = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
    { type: 'compaction', encrypted_content: 'enc-1' },
  ];
  const serialized = JSON.stringify(items);
  return {
    provider: 'openai',
    modelId: 'gpt-5.1',
    itemHash: sha256Hex(serialized),
    bytes: Buffer.byteLength(serialized),
    items,
    sourceHash: sha256Hex('s'),
    sourceMessages: 2,
    previousItemHash: null,
  };
}

const identity = { sessionId: 'ses_secret', lane: MAIN_LANE };
const target = { provider: 'openai', modelId: 'gpt-5.1' };

describe('opaque state holding a secret', () => {
  let root: string;
  let directory: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'forge-opaque-secret-'));
    directory = join(root, 'native-compaction');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('is replayed from memory but never written to disk, and removes the stale file it replaces', async () => {
    const store = new OpaqueStateStore({ directory, persist: true });
    await store.save(identity, stateWith('the build command is make ci'));
    expect(await readdir(join(directory, identity.sessionId))).toEqual(['main.json']);

    const secret = stateWith(`deploy with ${openAiKey}`);
    await store.save(identity, secret);
    expect(await store.forReplay(identity, target)).toEqual({ kind: 'replay', state: secret });
    expect(await readdir(join(directory, identity.sessionId))).toEqual([]);
    expect(await new OpaqueStateStore({ directory, persist: true }).forReplay(identity, target)).toEqual({
      kind: 'none',
    });
  });

  it('uses the redactor it is given, so configured secret values count too', async () => {
    const configured = 'corp-deploy-7f3a9c';
    const store = new OpaqueStateStore({
      directory,
      persist: true,
      redactor: createRedactor({ secrets: [configured] }),
    });
    await store.save(identity, stateWith(`the code is ${configured}`));
    await expect(readdir(join(directory, identity.sessionId))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
