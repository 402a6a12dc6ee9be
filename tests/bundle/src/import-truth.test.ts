import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBundle, userSetup } from './support/bundle.js';

/*
 * Issue 26's "the checkpoint says only what the record shows", through the bundled binary: a
 * rollout the real Codex 0.169 wrote (a bug fix whose successful steps mention "failing", then a
 * new function) imported as a session, its checkpoint and its messages read back.
 */

const fixture = useBundle('bundle-import-truth');
const rollout = path.join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'packages',
  'codex',
  'src',
  'rollout',
  'fixtures',
  'codex-0.169-bugfix.jsonl',
);
const CONSTRAINTS = [
  '[CONSTRAINTS]',
  '- do not change the test file (from user#0)',
  '- keep the public API of src/math.js unchanged (from user#0)',
  '- Do not add dependencies to package.json (from user#0)',
  '- the deadline is Friday (from user#0)',
  '- Use tabs not spaces (from user#0)',
  '',
].join('\n');

describe('forge import codex from the bundle', () => {
  it('tags none of the successful steps FAILED, keeps every constraint clause, and numbers messages alike everywhere', async () => {
    const user = await userSetup(fixture, 'import-truth');
    const imported = await user.forge(['import', 'codex', rollout, '--session', '--cwd', user.workspace]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).not.toContain('FAILED');
    expect(imported.stdout).toContain('[FAILURES]\n- (none)\n');
    expect(imported.stdout).toContain('- #2 tool: [exit 0, historical, run unknown] exec_command ok: ');
    expect(imported.stdout).toContain('- #7 assistant: [historical, run unknown] Fixed the failing add() test');
    expect(imported.stdout).toContain(CONSTRAINTS);
    const sessionId = /^session: (session_[A-Za-z0-9_-]+) /m.exec(imported.stderr)?.[1];
    if (sessionId === undefined) throw new Error(`no session id on stderr:\n${imported.stderr}`);

    // The stored checkpoint is the one printed; its numbers are the ones `sessions show` uses.
    const checkpoint = await user.forge(['checkpoint', 'show', '--session', sessionId]);
    expect(checkpoint.code).toBe(0);
    expect(checkpoint.stdout).toContain(CONSTRAINTS);
    expect(checkpoint.stdout).not.toContain('FAILED');
    const shown = await user.forge(['sessions', 'show', sessionId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('#0 user\n     Fix the failing add() test in src/math.js');
    expect(shown.stdout).toMatch(/#2 tool\n\s+← exec_command ok: /);
    expect(shown.stdout).toContain('checkpoint  summarizes messages [0, 10), tail from #10');
  });
});
