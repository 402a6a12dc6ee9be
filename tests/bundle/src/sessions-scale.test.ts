import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createSession } from '@forge/persistence';
import { describe, expect, it } from 'vitest';
import { sessionIdOf, useBundle, userSetup, type UserSetup } from './support/bundle.js';

/*
 * Long-lived use through the bundled binary (issue 33): `sessions list` reads each session's
 * small index, shows the newest 20 unless told otherwise and can keep one workspace's; `--last`
 * says when the workspace's newest session is damaged instead of passing over it (issue 29).
 */

const fixture = useBundle('bundle-sessions-scale');

/** `count` sessions of `workspaceRoot`, one message each, a second apart, written through the store. */
async function storedSessions(user: UserSetup, workspaceRoot: string, count: number, first = 0): Promise<string[]> {
  const ids: string[] = [];
  for (let index = first; index < first + count; index += 1) {
    const now = () => Date.parse('2026-01-01T00:00:00.000Z') + index * 1000;
    const writer = await createSession(user.forgeHome, {
      workspaceRoot,
      now,
      id: `session_${String(index).padStart(4, '0')}`,
    });
    await writer.appendMessages([{ role: 'user', content: `request ${index}` }]);
    await writer.close();
    ids.push(writer.id);
  }
  return ids;
}

const listedIds = (stdout: string) => JSON.parse(stdout).map((session: { id: string }) => session.id) as string[];

describe('the bundled forge sessions list', () => {
  it('shows the newest 20 first, more with --limit or --all, and one workspace with --workspace', async () => {
    const user = await userSetup(fixture, 'list');
    const elsewhere = path.join(path.dirname(user.workspace), 'elsewhere');
    const here = await storedSessions(user, user.workspace, 20);
    const there = await storedSessions(user, elsewhere, 5, 20);
    const newestFirst = [...here, ...there].reverse();

    const plain = await user.forge(['sessions', 'list']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('(the newest 20 shown; --limit <n> or --all for more)');
    expect(plain.stdout.split('\n').filter((line) => line.includes('session_')).length).toBe(20);
    expect(listedIds((await user.forge(['sessions', 'list', '--json'])).stdout)).toEqual(newestFirst.slice(0, 20));
    expect(listedIds((await user.forge(['sessions', 'list', '--json', '--limit', '3'])).stdout)).toEqual(
      newestFirst.slice(0, 3),
    );
    expect(listedIds((await user.forge(['sessions', 'list', '--json', '--all'])).stdout)).toEqual(newestFirst);
    expect(listedIds((await user.forge(['sessions', 'list', '--json', '--all', '--workspace', '.'])).stdout)).toEqual(
      [...here].reverse(),
    );
    const both = await user.forge(['sessions', 'list', '--all', '--limit', '2']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--all and --limit both say how many sessions to show');
  });

  it('lists the same sessions after their indexes are deleted or damaged, rebuilt from the logs', async () => {
    const user = await userSetup(fixture, 'rebuild');
    const ids = await storedSessions(user, user.workspace, 3);
    const before = (await user.forge(['sessions', 'list', '--json'])).stdout;
    await rm(path.join(user.forgeHome, 'sessions', ids[0] as string, 'session.index.json'));
    await writeFile(
      path.join(user.forgeHome, 'sessions', ids[1] as string, 'session.index.json'),
      '{"v":1,"logBytes":3',
    );
    expect((await user.forge(['sessions', 'list', '--json'])).stdout).toBe(before);
  });
});

describe('the bundled forge --last', () => {
  it("says the workspace's newest session is damaged, where, and how to recover, instead of finding no session", async () => {
    const user = await userSetup(fixture, 'damaged');
    const run = await user.forge(['run', '--model', 'scripted:demo', 'Summarise the workspace']);
    expect(run.code).toBe(0);
    const id = sessionIdOf(run.stderr);
    const log = path.join(user.forgeHome, 'sessions', id, 'session.jsonl');
    const bytes = await readFile(log);
    bytes[bytes.indexOf(10) + 40] = (bytes[bytes.indexOf(10) + 40] as number) ^ 0x01;
    await writeFile(log, bytes);

    const resumed = await user.forge(['run', '--last', '--model', 'scripted:demo', 'Go on']);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain(`the newest session of ${user.workspace}, ${id}, is damaged: line 2:`);
    expect(resumed.stderr).toContain(`'forge sessions show ${id}'`);
    expect(resumed.stderr).toContain(log);
    expect(resumed.stderr).not.toContain('found no earlier session');
    expect(await readFile(log)).toEqual(bytes);
  });
});
