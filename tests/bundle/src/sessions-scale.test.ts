import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createSession } from '@forge/persistence';
import { describe, expect, it } from 'vitest';
import { sessionIdOf, useBundle, userSetup, type UserSetup } from './support/bundle.js';

/*
 * Long-lived use through the bundled binary (issue 33): `sessions list` reads each session's
 * small index (kept in `sessions/.listing.json` while the logs do not change), shows the newest 20
 * unless told otherwise and can keep one workspace's; `inspect <session>` reads its run index;
 * `--last`
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

  it('lists the same sessions after their indexes or the listing are deleted or damaged, rebuilt from the logs', async () => {
    const user = await userSetup(fixture, 'rebuild');
    const ids = await storedSessions(user, user.workspace, 3);
    const listing = path.join(user.forgeHome, 'sessions', '.listing.json');
    const before = (await user.forge(['sessions', 'list', '--json'])).stdout;
    await rm(path.join(user.forgeHome, 'sessions', ids[0] as string, 'session.index.json'));
    await writeFile(
      path.join(user.forgeHome, 'sessions', ids[1] as string, 'session.index.json'),
      '{"v":1,"logBytes":3',
    );
    await rm(listing);
    expect((await user.forge(['sessions', 'list', '--json'])).stdout).toBe(before);
    await writeFile(listing, '{"v":1,"sessions":{');
    expect((await user.forge(['sessions', 'list', '--json'])).stdout).toBe(before);
  });

  it('lists a session a run appended to as it is now, not as the listing last saw it', async () => {
    const user = await userSetup(fixture, 'appended');
    const ids = await storedSessions(user, user.workspace, 3);
    await user.forge(['sessions', 'list']);
    const resumed = await user.forge(['run', '--resume', ids[0] as string, '--model', 'scripted:demo', 'Go on']);
    expect(resumed.code).toBe(0);
    const listed = JSON.parse((await user.forge(['sessions', 'list', '--json'])).stdout) as {
      id: string;
      messageCount: number;
    }[];
    expect(listed[0]?.id).toBe(ids[0]);
    expect(listed[0]?.messageCount).toBeGreaterThan(1);
    await rm(path.join(user.forgeHome, 'sessions', '.listing.json'));
    expect(JSON.parse((await user.forge(['sessions', 'list', '--json'])).stdout)).toEqual(listed);
  });
});

describe('the bundled forge inspect <session>', () => {
  it('lists the same runs from its run index as from the traces, and a run added since', async () => {
    const user = await userSetup(fixture, 'inspect');
    const first = await user.forge(['run', '--model', 'scripted:demo', 'Summarise the workspace']);
    expect(first.code).toBe(0);
    const id = sessionIdOf(first.stderr);
    expect((await user.forge(['run', '--last', '--model', 'scripted:demo', 'Go on'])).code).toBe(0);
    const runIndex = path.join(user.forgeHome, 'sessions', id, 'runs.index.json');

    const built = await user.forge(['inspect', id]);
    expect(built.code).toBe(0);
    expect(built.stdout).toContain(`Session ${id}: 2 run(s) with traces`);
    expect(JSON.parse(await readFile(runIndex, 'utf8'))).toMatchObject({ v: 1 });
    expect((await user.forge(['inspect', id])).stdout).toBe(built.stdout);
    await writeFile(runIndex, '{"v":1,');
    expect((await user.forge(['inspect', id])).stdout).toBe(built.stdout);

    expect((await user.forge(['run', '--last', '--model', 'scripted:demo', 'And once more'])).code).toBe(0);
    const grown = await user.forge(['inspect', id]);
    expect(grown.stdout).toContain(`Session ${id}: 3 run(s) with traces`);
    await rm(runIndex);
    expect((await user.forge(['inspect', id])).stdout).toBe(grown.stdout);
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

describe('the bundled forge gc', () => {
  it('lists old traces and crash leftovers with --dry-run, prunes them without it, and never touches a session log', async () => {
    const user = await userSetup(fixture, 'gc');
    await user.writeConfig({ traces: { keepDays: 30, keepRuns: 1 } });
    const ids: string[] = [];
    for (const prompt of ['first', 'second', 'third']) {
      const run = await user.forge(['run', '--model', 'scripted:demo', prompt]);
      expect(run.code).toBe(0);
      ids.push(sessionIdOf(run.stderr));
    }
    const runs = path.join(user.forgeHome, 'runs');
    const traces = (await readdir(runs)).sort();
    expect(traces).toHaveLength(3);
    const old = new Date(Date.now() - 90 * 24 * 60 * 60 * 1000);
    // Everything is old, session logs included: only the age of traces counts, and logs are never pruned.
    for (const trace of traces) await utimes(path.join(runs, trace), old, old);
    const logs = ids.map((id) => path.join(user.forgeHome, 'sessions', id, 'session.jsonl'));
    for (const log of logs) await utimes(log, old, old);
    const newest = path.join(runs, traces[2] as string);
    await utimes(newest, new Date(), new Date());
    const leftover = path.join(user.forgeHome, 'sessions', '.creating-session_x-0123456789ab');
    await mkdir(leftover);
    await utimes(leftover, old, old);
    const logBytes = await Promise.all(logs.map((log) => readFile(log)));

    const dry = await user.forge(['gc', '--dry-run']);
    expect(dry.code).toBe(0);
    for (const trace of traces.slice(0, 2)) expect(dry.stdout).toContain(`would remove ${path.join(runs, trace)}`);
    expect(dry.stdout).toContain(`would remove ${leftover}`);
    expect(dry.stdout).not.toContain(newest);
    expect(dry.stdout).not.toContain('session.jsonl');
    expect((await readdir(runs)).sort()).toEqual(traces);

    const pruned = await user.forge(['gc']);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain('session logs are never pruned');
    expect(await readdir(runs)).toEqual([traces[2]]);
    const sessions = await readdir(path.join(user.forgeHome, 'sessions'));
    expect(sessions.filter((name) => !name.startsWith('.'))).toEqual([...ids].sort());
    expect(await Promise.all(logs.map((log) => readFile(log)))).toEqual(logBytes);
    // The sessions still resume after their traces are gone.
    expect((await user.forge(['run', '--last', '--model', 'scripted:demo', 'again'])).code).toBe(0);
    expect((await user.forge(['gc', '--dry-run'])).stdout).toContain('Nothing to prune');
  });
});
