import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SessionTranscript } from '@forge/persistence';
import { ScriptedModel } from '@forge/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createTestIo, runCli, temporaryDirectory } from '../test-support/cli-harness.js';

/* The hand-written older-generation rollouts of @forge/codex and their golden views, never edited. */
const fixtures = path.join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  '..',
  'packages',
  'codex',
  'src',
  'rollout',
  'fixtures',
);
const legacy = path.join(fixtures, 'legacy-0.46.jsonl');
const bare = path.join(fixtures, 'legacy-bare.jsonl');
/*
 * Written by the real Codex 0.169 binary (`codex exec --dangerously-bypass-approvals-and-sandbox`
 * against a loopback Responses server): a bug fix whose successful steps mention "failing" (a `cat`
 * of the test file that exits 0, "Fixed the failing add() test"), then a new function, and a request
 * that states its constraints in clauses.
 */
const bugfix = path.join(fixtures, 'codex-0.169-bugfix.jsonl');
const golden = (name: string, kind: 'checkpoint.txt' | 'state.json') =>
  readFile(path.join(fixtures, `${name}.${kind}`), 'utf8');

let scratch: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  scratch = await temporaryDirectory('forge-import-');
  forgeHome = await temporaryDirectory('forge-import-home-');
});

afterEach(async () => {
  await scratch.remove();
  await forgeHome.remove();
});

const forge = (args: readonly string[]) => runCli(args, { cwd: scratch.path, env: { FORGE_HOME: forgeHome.path } });

describe('forge import codex', () => {
  it('prints the golden checkpoint view of an older-generation rollout on stdout, naming every request, and the summary on stderr', async () => {
    const outcome = await forge(['import', 'codex', legacy]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe(await golden('legacy-0.46', 'checkpoint.txt'));
    expect(outcome.stdout).toContain(
      '- earlier user request (user#0): Fix the failing parser test\n- latest user request (user#8):\n  Now update the changelog\n',
    );
    expect(outcome.stderr).toBe(
      `Imported ${legacy} (Codex 0.46.0, legacy format): 13 messages, 4 commands, 1 file, 1 compaction, 11,420 tokens reported by Codex\n`,
    );
    expect((await forge(['import', 'codex', legacy])).stdout).toBe(outcome.stdout);
  });

  it('tags none of the successful steps of a real Codex rollout FAILED, and keeps every clause of its constraints', async () => {
    const outcome = await forge(['import', 'codex', bugfix, '--cwd', '.']);
    expect(outcome.code).toBe(0);
    const view = outcome.stdout;
    expect(view).not.toContain('FAILED');
    expect(view).toContain('[FAILURES]\n- (none)\n');
    expect(view).toContain('- #2 tool: [exit 0, historical, run unknown] exec_command ok: ');
    expect(view).toContain('- #7 assistant: [historical, run unknown] Fixed the failing add() test');
    expect(view).toContain(
      [
        '[CONSTRAINTS]',
        '- do not change the test file (from user#0)',
        '- keep the public API of src/math.js unchanged (from user#0)',
        '- Do not add dependencies to package.json (from user#0)',
        '- the deadline is Friday (from user#0)',
        '- Use tabs not spaces (from user#0)',
        '',
      ].join('\n'),
    );
    expect(outcome.stderr).toContain('(Codex 0.169.0, current format): 10 messages, 2 commands, 1 file');
  });

  it('imports a file with a torn last line, warning on stderr, and finds a relative path from the working directory', async () => {
    await writeFile(path.join(scratch.path, 'copy.jsonl'), await readFile(bare));
    const outcome = await forge(['import', 'codex', 'copy.jsonl']);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe(await golden('legacy-bare', 'checkpoint.txt'));
    expect(outcome.stderr).toContain(
      `forge: warning: the last line of ${path.join(scratch.path, 'copy.jsonl')} is cut off`,
    );
    expect(outcome.stderr).toContain('5 messages, 1 command, 1 file, 0 compactions, no token reports');
  });

  it('warns about lines of unknown types and still imports the rest', async () => {
    const file = path.join(scratch.path, 'with-unknown.jsonl');
    await writeFile(
      file,
      `${await readFile(legacy, 'utf8')}{"timestamp":"2025-10-01T10:00:00.000Z","type":"hologram","payload":{}}\n`,
    );
    const outcome = await forge(['import', 'codex', file]);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toContain(
      `forge: warning: skipped 1 line of ${file}: record types this Forge does not know (hologram)\n`,
    );
    expect(outcome.stderr).toContain('13 messages');
  });

  it('--json prints the state, the view, the checkpoint and the message count as one document', async () => {
    const outcome = await forge(['import', 'codex', legacy, '--json']);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toBe('');
    const document = JSON.parse(outcome.stdout) as {
      state: unknown;
      view: string;
      checkpoint: unknown;
      messageCount: number;
    };
    expect(document).toEqual({
      state: JSON.parse(await golden('legacy-0.46', 'state.json')),
      view: await golden('legacy-0.46', 'checkpoint.txt'),
      checkpoint: expect.objectContaining({
        strategy: 'forge-state',
        source: expect.objectContaining({ summarizedThrough: 13, messageCount: 13 }),
      }),
      messageCount: 13,
    });
  });

  it('--session stores the transcript with the import as its checkpoint, and the session resumes on the native engine', async () => {
    const outcome = await forge(['import', 'codex', legacy, '--session']);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe(await golden('legacy-0.46', 'checkpoint.txt'));
    const sessionId = /^session: (session_[A-Za-z0-9_-]+) /m.exec(outcome.stderr)?.[1];
    if (sessionId === undefined) throw new Error(`no session id on stderr:\n${outcome.stderr}`);

    const shown = await forge(['sessions', 'show', sessionId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Messages (13)');
    expect(shown.stdout).toContain('Fix the failing parser test');
    expect(shown.stdout).toContain('Now update the changelog');
    expect(shown.stdout).toContain('checkpoint  summarizes messages [0, 13), tail from #13');
    // The numbers are the checkpoint view's: its first user request is user#0, shown as #0 here too.
    expect(shown.stdout).toContain('#0 user\n     Fix the failing parser test');
    expect(outcome.stdout).toContain('(user#0): Fix the failing parser test');
    const stored = JSON.parse((await forge(['sessions', 'show', sessionId, '--json'])).stdout) as SessionTranscript;
    // Filed under the directory the import ran in, not the rollout's recorded cwd, so `--last` there finds it.
    expect(stored.workspaceRoot).toBe(scratch.path);
    expect(outcome.stderr).toContain(
      `the rollout was recorded in /nonexistent/forge-fixture/parser-project; the session is filed under ${scratch.path}`,
    );
    expect(stored.runs).toEqual([]);
    expect(stored.checkpoint?.checkpoint).toMatchObject({
      strategy: 'forge-state',
      state: { task: { text: 'Now update the changelog' } },
    });
    expect(stored.checkpoint?.source).toMatchObject({ summarizedThrough: 13, tailStart: 13, messageCount: 13 });

    const model = new ScriptedModel([{ text: 'Picking up from Codex.' }]);
    const test = createTestIo({ cwd: scratch.path, env: { FORGE_HOME: forgeHome.path }, models: { main: model } });
    test.stdin.end();
    expect(
      await main(['node', 'forge', 'run', '--model', 'test:main', '--resume', sessionId, 'Carry on'], test.io),
    ).toBe(0);
    // The import is the session's checkpoint: its view is sent in place of the 13 messages it summarizes.
    expect(model.requests[0]?.checkpoint).toBe(await golden('legacy-0.46', 'checkpoint.txt'));
    expect(model.requests[0]?.history).toEqual([]);
  });

  it('--json with --session names the session in the document', async () => {
    const outcome = await forge(['import', 'codex', bare, '--json', '--session']);
    expect(outcome.code).toBe(0);
    const document = JSON.parse(outcome.stdout) as { sessionId: string; messageCount: number };
    expect(document.messageCount).toBe(5);
    const listed = JSON.parse((await forge(['sessions', 'list', '--json'])).stdout) as {
      id: string;
      messageCount: number;
    }[];
    expect(listed.map((session) => [session.id, session.messageCount])).toEqual([[document.sessionId, 5]]);
  });

  it('stops with one line and exit 2 for a missing file, a directory, or a --cwd that does not exist', async () => {
    const missing = path.join(scratch.path, 'nope.jsonl');
    const cases = [
      [
        ['import', 'codex', missing],
        `forge: error: the rollout ${missing} does not exist; pass a rollout-*.jsonl file from $CODEX_HOME/sessions\n`,
      ],
      [
        ['import', 'codex', scratch.path],
        `forge: error: the rollout ${scratch.path} is not a file; pass a rollout-*.jsonl file from $CODEX_HOME/sessions\n`,
      ],
      [
        ['import', 'codex', legacy, '--cwd', missing],
        `forge: error: --cwd ${missing} does not exist; pass an existing directory\n`,
      ],
    ] as const;
    for (const [args, message] of cases) {
      expect(await forge(args)).toEqual({ code: 2, stdout: '', stderr: message });
    }
    expect(JSON.parse((await forge(['sessions', 'list', '--json'])).stdout)).toEqual([]);
  });

  it('refuses a file that is not a Codex rollout with one line and exit 2, storing no session', async () => {
    const garbage = path.join(scratch.path, 'notes.jsonl');
    await writeFile(garbage, 'hello\n{"just":"json"}\n[1,2,3]\n');
    for (const args of [
      ['import', 'codex', garbage],
      ['import', 'codex', garbage, '--session'],
    ]) {
      expect(await forge(args)).toEqual({
        code: 2,
        stdout: '',
        stderr: `forge: error: ${garbage} is not a Codex rollout: it has no session metadata and no turns; pass a rollout-*.jsonl file from $CODEX_HOME/sessions\n`,
      });
    }
    const empty = path.join(scratch.path, 'empty.jsonl');
    await writeFile(empty, '');
    expect((await forge(['import', 'codex', empty, '--session'])).code).toBe(2);
    expect(JSON.parse((await forge(['sessions', 'list', '--json'])).stdout)).toEqual([]);
  });

  it('skips a line over the limit with a warning, never reading it as one string, and imports the rest into the session', async () => {
    const file = path.join(scratch.path, 'huge-line.jsonl');
    const lines = (await readFile(legacy, 'utf8')).split('\n');
    const padding = 'x'.repeat(70 * 1024 * 1024);
    await writeFile(
      file,
      [
        lines[0],
        `{"type":"response_item","payload":{"type":"message","role":"user","content":"${padding}"}}`,
        ...lines.slice(1),
      ].join('\n'),
    );
    const outcome = await forge(['import', 'codex', file, '--session']);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toContain(`forge: warning: skipped 1 line of ${file} longer than 64 MiB, unread`);
    expect(outcome.stderr).toContain('13 messages');
    expect(outcome.stdout).not.toContain('xxxx');
  }, 60_000);

  it('hashes the touched files in the --cwd workspace', async () => {
    await writeFile(path.join(scratch.path, 'NOTES.md'), 'notes\n');
    const outcome = await forge(['import', 'codex', bare, '--cwd', '.']);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/- NOTES\.md \(sha256 [0-9a-f]{12} after edit #4\)/);
  });
});
