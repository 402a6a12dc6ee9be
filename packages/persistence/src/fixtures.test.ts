import { hashMessages } from '@forge/core';
import { cp, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SUPPORTED_SESSION_SCHEMAS } from './records.js';
import { openSession } from './session-open.js';
import { listSessions } from './session-list.js';
import { loadTranscript } from './session-read.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const homes: string[] = [];

/** A writable copy of a frozen fixture, so tests never change the fixture itself. */
async function copyOfFixture(version: string): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), `forge-fixture-${version}-`));
  homes.push(home);
  await cp(join(fixtures, version), home, { recursive: true });
  return home;
}

afterEach(async () => {
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
});

const demoMessages = [
  { role: 'user', content: 'What does src/parse.ts do?' },
  {
    role: 'assistant',
    content: [
      {
        type: 'text',
        text: 'It reads a `.env` file and returns a map:\n\n```ts\nexport function parse(text: string): Map<string, string>\n```\n\nBlank lines and `#` comments are skipped.',
      },
    ],
  },
  { role: 'user', content: 'My local file has DATABASE_PASSWORD=[REDACTED:secret-assignment] — is that parsed too?' },
  { role: 'assistant', content: [{ type: 'text', text: '' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Yes: every KEY=value line is parsed. Unicode works as well: naïve café ✓ 日本語.' },
    ],
  },
  { role: 'user', content: 'Thanks!\n\n\tTabs and "quotes" and a backslash \\ survive?' },
];

describe('frozen fixtures', () => {
  it('exist for every supported schema version', async () => {
    const versions = (await readdir(fixtures))
      .filter((name) => /^v\d+$/.test(name))
      .map((name) => Number(name.slice(1)));
    expect(versions.sort()).toEqual([...SUPPORTED_SESSION_SCHEMAS]);
  });
});

describe('schema v1 fixtures', () => {
  it('read without migrating', async () => {
    const home = await copyOfFixture('v1');
    const loaded = await loadTranscript(home, 'legacy_2024_demo');
    expect(loaded).toMatchObject({
      schemaVersion: 1,
      createdAt: '2024-11-05T14:02:11.482Z',
      updatedAt: '2024-11-05T14:09:57.013Z',
    });
    expect(loaded.messages).toEqual(demoMessages);
    expect(await readdir(join(home, 'sessions'))).toEqual(['legacy_2024_demo.json', 'legacy_empty.json']);
  });

  it('migrate to v2 without losing a message, keeping the original as a backup', async () => {
    const home = await copyOfFixture('v1');
    const original = await readFile(join(home, 'sessions', 'legacy_2024_demo.json'), 'utf8');
    const writer = await openSession(home, 'legacy_2024_demo');
    expect(writer.messages).toEqual(demoMessages);
    await writer.appendMessages([{ role: 'assistant', content: [{ type: 'text', text: 'They do.' }] }]);
    await writer.close();

    const sessions = join(home, 'sessions');
    expect((await readdir(sessions)).sort()).toEqual([
      'legacy_2024_demo',
      'legacy_2024_demo.v1.bak',
      'legacy_empty.json',
    ]);
    expect(await readFile(join(sessions, 'legacy_2024_demo.v1.bak'), 'utf8')).toBe(original);
    const migrated = await loadTranscript(home, 'legacy_2024_demo');
    expect(migrated).toMatchObject({
      schemaVersion: 2,
      createdAt: '2024-11-05T14:02:11.482Z',
      workspaceRoot: null,
      migratedFrom: {
        version: 1,
        backupFile: 'legacy_2024_demo.v1.bak',
        messageCount: 6,
        updatedAt: '2024-11-05T14:09:57.013Z',
      },
      warnings: [],
    });
    expect(migrated.messages).toEqual([
      ...demoMessages,
      { role: 'assistant', content: [{ type: 'text', text: 'They do.' }] },
    ]);
    expect(((await stat(join(sessions, 'legacy_2024_demo'))).mode & 0o777).toString(8)).toBe('700');
  });

  it('migrate an empty session', async () => {
    const home = await copyOfFixture('v1');
    const writer = await openSession(home, 'legacy_empty');
    expect(writer.messages).toEqual([]);
    await writer.close();
    expect((await loadTranscript(home, 'legacy_empty')).migratedFrom?.messageCount).toBe(0);
  });

  it('finish a migration interrupted after the v2 session was installed', async () => {
    const home = await copyOfFixture('v1');
    const sessions = join(home, 'sessions');
    const writer = await openSession(home, 'legacy_2024_demo');
    await writer.close();
    // As if the process died before keeping the v1 file aside.
    await cp(join(fixtures, 'v1', 'sessions', 'legacy_2024_demo.json'), join(sessions, 'legacy_2024_demo.json'));
    await rm(join(sessions, 'legacy_2024_demo.v1.bak'));
    const reopened = await openSession(home, 'legacy_2024_demo');
    expect(reopened.messages).toEqual(demoMessages);
    expect(reopened.openWarnings).toEqual([]);
    await reopened.close();
    expect((await readdir(sessions)).sort()).toEqual([
      'legacy_2024_demo',
      'legacy_2024_demo.v1.bak',
      'legacy_empty.json',
    ]);
  });

  it('are listed alongside v2 sessions', async () => {
    const home = await copyOfFixture('v1');
    const listed = await listSessions(home);
    expect(
      listed.map(({ id, schemaVersion, messageCount, firstUserLine }) => ({
        id,
        schemaVersion,
        messageCount,
        firstUserLine,
      })),
    ).toEqual([
      { id: 'legacy_empty', schemaVersion: 1, messageCount: 0, firstUserLine: undefined },
      { id: 'legacy_2024_demo', schemaVersion: 1, messageCount: 6, firstUserLine: 'What does src/parse.ts do?' },
    ]);
  });
});

describe('schema v2 fixtures', () => {
  it('load every record type', async () => {
    const home = await copyOfFixture('v2');
    const loaded = await loadTranscript(home, 'fixture_v2_full');
    expect(loaded).toMatchObject({ schemaVersion: 2, workspaceRoot: '/home/dev/projects/calculator', warnings: [] });
    expect(loaded.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(
      loaded.runs.map(({ runId, status, error, firstMessageIndex }) => ({ runId, status, error, firstMessageIndex })),
    ).toEqual([
      { runId: 'run_fixture_1', status: 'completed', error: undefined, firstMessageIndex: 0 },
      {
        runId: 'run_fixture_2',
        status: 'failed',
        error: { code: 'rate_limited', message: 'The provider asked to retry after 20 s.', isRetryable: true },
        firstMessageIndex: 6,
      },
    ]);
    expect(loaded.checkpoint?.source).toEqual({
      summarizedThrough: 3,
      sourceHash: hashMessages(loaded.messages.slice(0, 3)),
      tailStart: 3,
      tailHash: hashMessages(loaded.messages.slice(3, 7)),
      messageCount: 7,
    });
  });

  it('recover from a torn last record with the same transcript prefix and checkpoint provenance', async () => {
    const home = await copyOfFixture('v2');
    const full = await loadTranscript(home, 'fixture_v2_full');
    const torn = await loadTranscript(home, 'fixture_v2_torn');
    expect(torn.messages).toEqual(full.messages.slice(0, -1));
    expect(torn.checkpoint).toEqual(full.checkpoint);
    expect(torn.warnings.map((warning) => warning.code)).toEqual(['torn_tail']);

    const writer = await openSession(home, 'fixture_v2_torn');
    await writer.appendMessages([full.messages.at(-1)!]);
    await writer.close();
    const repaired = await loadTranscript(home, 'fixture_v2_torn');
    expect(repaired.messages).toEqual(full.messages);
    expect(repaired.warnings).toEqual([]);
  });
});
