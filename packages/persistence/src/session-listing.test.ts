import { cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSession, openSession } from './session-open.js';
import { lastSession, listSessions } from './session-list.js';
import { SESSION_LISTING_FILE_NAME } from './session-listing.js';
import { sampleTranscript, useTemporaryHome } from './temporary-home.test-helpers.js';

/* The listing beside the sessions (issue 33): one file that answers `sessions list`, never trusted over the logs. */

const temporaryHome = useTemporaryHome();
const v1Fixture = join(import.meta.dirname, '..', 'fixtures', 'v1');

/** Three v2 sessions in two workspaces, each with a priced run, and the v1 fixture's sessions. */
async function homeOfSessions(): Promise<string> {
  const home = await temporaryHome();
  for (const [id, workspaceRoot] of [
    ['session_a', '/w/one'],
    ['session_b', '/w/two'],
    ['session_c', '/w/one'],
  ] as const) {
    const writer = await createSession(home, { workspaceRoot, id });
    await writer.recordRunStart({ runId: `run_${id}` });
    await writer.appendMessages(sampleTranscript(), { runId: `run_${id}` });
    await writer.recordRunEnd({
      runId: `run_${id}`,
      status: 'completed',
      usage: {
        inputTokens: 10,
        cacheReadTokens: 4,
        cacheWriteTokens: undefined,
        outputTokens: 2,
        reasoningTokens: undefined,
      },
      cost: { currency: 'USD', freshInput: 0.01, cachedInput: 0.001, cacheWrite: 0, output: 0.02, total: 0.031 },
    });
    await writer.close();
  }
  await cp(join(v1Fixture, 'sessions'), join(home, 'sessions'), { recursive: true });
  return home;
}

const listingFile = (home: string) => join(home, 'sessions', SESSION_LISTING_FILE_NAME);

type StoredListing = { v: number; sessions: Record<string, Record<string, unknown>> };
const readListing = async (home: string) => JSON.parse(await readFile(listingFile(home), 'utf8')) as StoredListing;

/** What a listing says with no listing file: every session read from its index (or v1 file). */
async function listedWithoutListing(home: string, options: Parameters<typeof listSessions>[1] = {}) {
  await rm(listingFile(home), { force: true });
  return listSessions(home, options);
}

describe('the session listing', () => {
  it('answers a listing the way the indexes do, and is written 0600 beside the sessions', async () => {
    const home = await homeOfSessions();
    const fromIndexes = await listedWithoutListing(home);
    expect(fromIndexes.map((session) => session.id).sort()).toEqual([
      'legacy_2024_demo',
      'legacy_empty',
      'session_a',
      'session_b',
      'session_c',
    ]);
    expect((await stat(listingFile(home))).mode & 0o777).toBe(0o600);
    expect(Object.keys((await readListing(home)).sessions).sort()).toEqual(fromIndexes.map((s) => s.id).sort());
    expect(await listSessions(home)).toEqual(fromIndexes);
    expect(await listSessions(home, { workspaceRoot: '/w/one', limit: 1 })).toEqual([
      fromIndexes.find((session) => session.workspaceRoot === '/w/one'),
    ]);
    expect(await lastSession(home, { workspaceRoot: '/w/two' })).toEqual(
      fromIndexes.find((session) => session.id === 'session_b'),
    );
  });

  it('answers from its lines while the logs are as they were, and reads a session again once its log changed', async () => {
    const home = await homeOfSessions();
    await listSessions(home);
    const stored = await readListing(home);
    const line = stored.sessions['session_a'] as Record<string, unknown>;
    line['firstUserLine'] = 'from the listing';
    await writeFile(listingFile(home), JSON.stringify(stored));
    const listed = await listSessions(home);
    expect(listed.find((session) => session.id === 'session_a')?.firstUserLine).toBe('from the listing');

    const writer = await openSession(home, 'session_a');
    await writer.appendMessages([{ role: 'user', content: 'one more request' }], { runId: 'run_more' });
    await writer.close();
    const after = await listSessions(home);
    const grown = after.find((session) => session.id === 'session_a');
    expect(grown?.firstUserLine).toBe('Find the failing test and fix it.');
    expect(grown?.messageCount).toBe(sampleTranscript().length + 1);
    expect(after).toEqual(await listedWithoutListing(home));
  });

  it('drops a session that is gone, and re-reads one whose line fails its checks when it is shown', async () => {
    const home = await homeOfSessions();
    const expected = await listedWithoutListing(home);
    await rm(join(home, 'sessions', 'session_c'), { recursive: true });
    expect((await listSessions(home)).map((session) => session.id)).not.toContain('session_c');
    expect(Object.keys((await readListing(home)).sessions)).not.toContain('session_c');

    const stored = await readListing(home);
    (stored.sessions['session_b'] as Record<string, unknown>)['totals'] = 'not totals';
    await writeFile(listingFile(home), JSON.stringify(stored));
    expect((await listSessions(home)).find((session) => session.id === 'session_b')).toEqual(
      expected.find((session) => session.id === 'session_b'),
    );
  });

  it('is rebuilt with the same results when it is damaged or deleted', async () => {
    const home = await homeOfSessions();
    const expected = await listedWithoutListing(home);
    for (const damage of ['', '{"v":1,"sessions":', '[]', '{"v":2,"sessions":{}}', 'null']) {
      await writeFile(listingFile(home), damage);
      expect(await listSessions(home)).toEqual(expected);
      expect((await readListing(home)).v).toBe(1);
    }
    await rm(listingFile(home));
    expect(await listSessions(home)).toEqual(expected);
  });

  it('only costs time when it cannot be written', async () => {
    const home = await homeOfSessions();
    const expected = await listedWithoutListing(home);
    // A directory where the file should be: the rename over it fails, and reading finds no file.
    await rm(listingFile(home));
    await mkdir(listingFile(home));
    expect(await listSessions(home)).toEqual(expected);
    expect(await listSessions(home)).toEqual(expected);
    expect((await stat(listingFile(home))).isDirectory()).toBe(true);
  });
});
