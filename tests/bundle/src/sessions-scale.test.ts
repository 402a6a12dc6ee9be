import { cp, mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
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

/** The lines of the REPL's greeting between `So far:` and the prompt hint: its recap and the session line. */
function recapOf(stdout: string): string[] {
  const lines = stdout.split('\n');
  const from = lines.findIndex((line) => line.startsWith('Resumed session'));
  const to = lines.findIndex((line) => line.startsWith('Type a request'));
  return lines.slice(from, to);
}

describe('the bundled forge resuming a compacted session (mode compact)', () => {
  it('reads the checkpoint and what follows it, and answers, stores and measures the same whether its index is fresh, deleted, damaged or an older one', async () => {
    const user = await userSetup(fixture, 'window');
    const words = ['parser', 'lexer', 'token', 'grammar', 'module', 'buffer', 'symbol'];
    const lines = Array.from({ length: 900 }, (_, line) =>
      Array.from(
        { length: 12 },
        (_, word) => `${words[(line * 5 + word) % words.length]}${(line * 13 + word) % 991}`,
      ).join(' '),
    );
    await writeFile(path.join(user.workspace, 'a.txt'), `${lines.join('\n')}\n`);
    const compact = { FORGE_CONTEXT_MODE: 'compact' };
    for (const request of ['turn 1', 'turn 2', 'turn 3']) {
      const last = request === 'turn 1' ? [] : ['--last'];
      const run = await user.forge(['run', '--model', 'scripted:demo', ...last, request], compact);
      expect(run.code, run.stderr).toBe(0);
    }
    const compacted = await user.forge(['compact', '--last', '--model', 'scripted:demo'], compact);
    expect(compacted.code, compacted.stderr).toBe(0);
    const after = await user.forge(['run', '--model', 'scripted:demo', '--last', 'turn 4'], compact);
    expect(after.code, after.stderr).toBe(0);
    const id = sessionIdOf(after.stderr);
    const directory = path.join(user.forgeHome, 'sessions', id);
    const indexFile = path.join(directory, 'session.index.json');
    const pristine = path.join(path.dirname(user.workspace), 'pristine-session');
    await cp(directory, pristine, { recursive: true, preserveTimestamps: true });
    const stored = await user.session(id);
    expect(stored.checkpoint?.source.tailStart).toBeGreaterThan(0);

    const damages: Record<string, () => Promise<void>> = {
      fresh: async () => {},
      deleted: () => rm(indexFile),
      damaged: () => writeFile(indexFile, '{"v":2,"logBytes":'),
      'an older Forge': () => writeFile(indexFile, JSON.stringify({ v: 1, logBytes: 12, lastSuffix: 'x' })),
    };
    const results: Record<string, unknown> = {};
    for (const [name, damage] of Object.entries(damages)) {
      await rm(directory, { recursive: true, force: true });
      await cp(pristine, directory, { recursive: true, preserveTimestamps: true });
      await damage();
      const measured = await user.forge(['context', '--last', '--json', '--model', 'scripted:demo'], compact);
      expect(measured.code, measured.stderr).toBe(0);
      const repl = await user.forge(['--last', '--model', 'scripted:demo'], compact);
      expect(repl.code, repl.stderr).toBe(0);
      const resumed = await user.forge(['run', '--model', 'scripted:demo', '--last', 'turn 5'], compact);
      expect(resumed.code, resumed.stderr).toBe(0);
      const session = await user.session(id);
      expect(session.messages.length).toBeGreaterThan(stored.messages.length);
      expect(session.messages.slice(0, stored.messages.length)).toEqual(stored.messages);
      const report = JSON.parse(measured.stdout) as { checkpoint?: { id?: string } };
      expect(report.checkpoint?.id).toMatch(/^cp_/);
      results[name] = {
        measured: measured.stdout,
        recap: recapOf(repl.stdout),
        answer: resumed.stdout,
        messages: session.messages.length,
      };
    }
    // The REPL in mode warn reads the whole log: its recap of the same session is the same.
    await rm(directory, { recursive: true, force: true });
    await cp(pristine, directory, { recursive: true, preserveTimestamps: true });
    const whole = await user.forge(['--last', '--model', 'scripted:demo'], { FORGE_CONTEXT_MODE: 'warn' });
    expect(recapOf(whole.stdout)).toEqual((results['fresh'] as { recap: string[] }).recap);
    expect(recapOf(whole.stdout).length).toBeGreaterThan(1);
    expect(results['deleted']).toEqual(results['fresh']);
    expect(results['damaged']).toEqual(results['fresh']);
    expect(results['an older Forge']).toEqual(results['fresh']);
  });

  it('does not read the summarized messages: a byte changed in one (size and time kept) is found by sessions show, not by run --last', async () => {
    const user = await userSetup(fixture, 'window-prefix');
    // Without the context tools on offer, nothing but the resume itself reads the log.
    await user.writeConfig({ context: { checkpointNote: false, requestCompaction: false } });
    const compact = { FORGE_CONTEXT_MODE: 'compact' };
    await writeFile(path.join(user.workspace, 'a.txt'), `${'the parser reads tokens from the lexer\n'.repeat(2_000)}`);
    for (const request of ['turn 1', 'turn 2', 'turn 3']) {
      const last = request === 'turn 1' ? [] : ['--last'];
      expect((await user.forge(['run', '--model', 'scripted:demo', ...last, request], compact)).code).toBe(0);
    }
    expect((await user.forge(['compact', '--last', '--model', 'scripted:demo'], compact)).code).toBe(0);
    const id = (await readdir(path.join(user.forgeHome, 'sessions'))).find((name) => name.startsWith('session_')) ?? '';
    const log = path.join(user.forgeHome, 'sessions', id, 'session.jsonl');
    // A time a file system keeps exactly, and an index made for it (the listing brings it up to date).
    const mtime = new Date('2026-01-02T03:04:05.000Z');
    await utimes(log, mtime, mtime);
    expect((await user.forge(['sessions', 'list'])).code).toBe(0);
    const bytes = await readFile(log);
    // The third line is the first message, which the checkpoint summarizes.
    const third = bytes.indexOf(10, bytes.indexOf(10) + 1) + 1;
    bytes[third + 30] = (bytes[third + 30] as number) ^ 0x01;
    await writeFile(log, bytes);
    await utimes(log, mtime, mtime);

    const resumed = await user.forge(['run', '--model', 'scripted:demo', '--last', 'turn 4'], compact);
    expect(resumed.code, resumed.stderr).toBe(0);
    const shown = await user.forge(['sessions', 'show', id]);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('line 3');
  });
});
