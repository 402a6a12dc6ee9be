import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findPrunable } from './home-gc.js';

describe('findPrunable', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'forge-gc-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('finds an index temporary a dead writer left, as writeFileAtomic names it, once it is an hour old', async () => {
    const session = join(home, 'sessions', 'session_a');
    await mkdir(session, { recursive: true });
    await writeFile(join(session, 'session.jsonl'), '');
    const stale = join(session, '.session.index.json.forge-4194304-0123456789ab.tmp');
    const recent = join(session, '.session.index.json.forge-4194305-0123456789ab.tmp');
    await writeFile(stale, '{"half":');
    await writeFile(recent, '{"half":');
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(stale, old, old);

    const found = await findPrunable(home, { keepDays: 30, keepRuns: 200 });
    expect(found.map((candidate) => candidate.path)).toEqual([stale]);
    expect(found[0]?.kind).toBe('orphan');
  });
});
