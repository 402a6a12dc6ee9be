import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex, type OpaqueProviderState } from '@forge/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAIN_LANE } from './opaque-state-store.js';
import { deleteStateFile, OPAQUE_STATE_SCHEMA_VERSION, writeStateFile } from './state-file.js';

/*
 * Regression: a process killed between creating a state's temporary file and renaming it left
 * `.<lane>.<hex>.tmp` behind for good — holding the retained user messages in plain text, even after
 * the conversation's state was discarded. Found by the reliability suite's SIGKILL test.
 */

const state: OpaqueProviderState = {
  provider: 'openai',
  modelId: 'gpt-5.1',
  itemHash: sha256Hex('[]'),
  bytes: 2,
  items: [],
  sourceHash: sha256Hex('s'),
  sourceMessages: 0,
  previousItemHash: null,
};
const main = { sessionId: 'ses_tmp', lane: MAIN_LANE };

describe('temporaries left by a killed write', () => {
  let directory: string;
  let sessionDirectory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'forge-state-file-'));
    sessionDirectory = join(directory, main.sessionId);
    await mkdir(sessionDirectory, { recursive: true });
    await writeFile(join(sessionDirectory, '.main.0123456789ab.tmp'), '{"half":');
    // Written by a process that still runs (pid 1): only the lock holder writes a lane, so it is no write going on.
    await writeFile(join(sessionDirectory, '.main.json.forge-1-0123456789ab.tmp'), '{"half":');
    await writeFile(join(sessionDirectory, '.sub_reviewer.0123456789ab.tmp'), '{"other lane":');
    await writeFile(join(sessionDirectory, '.main.notes'), 'not a temporary of ours');
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('are removed by the next write of the same conversation, and only those', async () => {
    await writeStateFile(directory, main, {
      schemaVersion: OPAQUE_STATE_SCHEMA_VERSION,
      sessionId: main.sessionId,
      lane: main.lane,
      savedAt: '2026-01-01T00:00:00.000Z',
      state,
    });
    expect((await readdir(sessionDirectory)).sort()).toEqual([
      '.main.notes',
      '.sub_reviewer.0123456789ab.tmp',
      'main.json',
    ]);
  });

  it('are removed when the conversation state is discarded', async () => {
    await deleteStateFile(directory, main);
    expect((await readdir(sessionDirectory)).sort()).toEqual(['.main.notes', '.sub_reviewer.0123456789ab.tmp']);
  });
});
