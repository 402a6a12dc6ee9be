import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CorruptFileError } from './errors.js';
import { createSession, openSession } from './session-open.js';
import { loadTranscript } from './session-read.js';
import { sessionRunIds } from './session-run-ids.js';
import { sampleTranscript, useTemporaryHome } from './temporary-home.test-helpers.js';

const temporaryHome = useTemporaryHome();
const USAGE = {
  inputTokens: 10,
  cacheReadTokens: 0,
  cacheWriteTokens: undefined,
  outputTokens: 1,
  reasoningTokens: undefined,
};

async function appendRuns(home: string, id: string, runIds: readonly string[], options: { create?: boolean } = {}) {
  const writer =
    options.create === true ? await createSession(home, { workspaceRoot: '/w', id }) : await openSession(home, id);
  try {
    for (const runId of runIds) {
      await writer.recordRunStart({ runId });
      await writer.appendMessages(sampleTranscript(), { runId });
      await writer.recordRunEnd({ runId, status: 'completed', usage: USAGE });
    }
  } finally {
    await writer.close();
  }
}

const loaded = async (home: string, id: string) => (await loadTranscript(home, id)).runs.map((run) => run.runId);
const logOf = (home: string, id: string) => join(home, 'sessions', id, 'session.jsonl');

describe('sessionRunIds', () => {
  it('lists the runs loading lists, reading only the records appended since the last call', async () => {
    const home = await temporaryHome();
    await appendRuns(home, 'grown', ['run_a', 'run_b'], { create: true });
    const first = await sessionRunIds(home, 'grown');
    expect(first.runIds).toEqual(['run_a', 'run_b']);
    expect(first.logBytes).toBe((await readFile(logOf(home, 'grown'))).length);

    await appendRuns(home, 'grown', ['run_c', 'run_b', 'run_d']);
    const grown = await sessionRunIds(home, 'grown', first);
    expect(grown.runIds).toEqual(await loaded(home, 'grown'));
    expect(grown.runIds).toEqual(['run_a', 'run_b', 'run_c', 'run_d']);
    expect(grown).toEqual(await sessionRunIds(home, 'grown'));

    // A torn tail is not read, and is not damage.
    await appendFile(logOf(home, 'grown'), '{"v":2,"seq":');
    expect((await sessionRunIds(home, 'grown', grown)).runIds).toEqual(grown.runIds);
  });

  it('reads the whole log when it is not the one the ids were read from, and throws as loading does when it is damaged', async () => {
    const home = await temporaryHome();
    await appendRuns(home, 'replaced', ['run_a', 'run_b'], { create: true });
    const before = await sessionRunIds(home, 'replaced');
    // The session made again under the same id, longer: the bytes at the old end differ.
    await rm(join(home, 'sessions', 'replaced'), { recursive: true });
    await appendRuns(home, 'replaced', ['run_p', 'run_q', 'run_r'], { create: true });
    expect((await sessionRunIds(home, 'replaced', before)).runIds).toEqual(['run_p', 'run_q', 'run_r']);

    await appendRuns(home, 'damaged', ['run_a'], { create: true });
    const known = await sessionRunIds(home, 'damaged');
    await appendRuns(home, 'damaged', ['run_b']);
    const bytes = await readFile(logOf(home, 'damaged'));
    bytes[known.logBytes + 20] = (bytes[known.logBytes + 20] as number) ^ 0x01;
    await writeFile(logOf(home, 'damaged'), bytes);
    await expect(sessionRunIds(home, 'damaged', known)).rejects.toThrow(CorruptFileError);
    await expect(loadTranscript(home, 'damaged')).rejects.toThrow(CorruptFileError);
  });
});
