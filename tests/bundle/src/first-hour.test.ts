import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnForge } from '@forge/cli/bundle-testing';
import { ensureTmux, TmuxTerminal } from '@forge/cli/testing-terminal';
import { startLoopbackProvider, turn } from '@forge/loopback-provider';
import { describe, expect, it } from 'vitest';
import { useBundle, userSetup } from './support/bundle.js';

/*
 * Issue 29: what a new user met in the first hour with the bundled binary, each point checked as
 * the user met it.
 */

const fixture = useBundle('bundle-first-hour');

/** The ids of the sessions stored in FORGE_HOME (its sessions directory also holds index files). */
async function storedSessions(forgeHome: string): Promise<string[]> {
  return (await readdir(path.join(forgeHome, 'sessions'))).filter((name) => name.startsWith('session_'));
}

/** A configuration problem: where it is written, the key `config validate` must name, and what makes it. */
interface ConfigCase {
  readonly name: string;
  readonly key: string;
  readonly where: 'user' | 'project' | 'env';
  readonly content?: string | Record<string, unknown>;
  readonly env?: Record<string, string>;
}

const configCases: readonly ConfigCase[] = [
  { name: 'a JSON syntax error', key: '', where: 'user', content: '{"schemaVersion": 1, "model": }' },
  { name: 'an unknown key', key: 'context.compactRatio', where: 'user', content: { context: { compactRatio: 0.5 } } },
  {
    name: 'a value of the wrong type',
    key: 'context.bufferTokens',
    where: 'user',
    content: { context: { bufferTokens: 'big' } },
  },
  { name: 'a model id without provider', key: 'model', where: 'user', content: { model: 'gpt-5.1' } },
  {
    name: 'compactAtRatio below the target',
    key: 'context.compactAtRatio',
    where: 'user',
    content: { context: { compactAtRatio: 0.4 } },
  },
  {
    name: 'compactAtRatio lowered by the project below the target',
    key: 'context.compactAtRatio',
    where: 'project',
    content: { context: { compactAtRatio: 0.3 } },
  },
  {
    name: 'model-structured without a compactor',
    key: 'context.compaction.strategy',
    where: 'user',
    content: { context: { compaction: { strategy: 'model-structured' } } },
  },
  {
    name: 'a compactor of an unknown provider',
    key: 'context.compaction.model',
    where: 'user',
    content: { context: { compaction: { strategy: 'model-structured', model: 'nope:x' } } },
  },
  { name: 'a default model of an unknown provider', key: 'model', where: 'user', content: { model: 'nope:x' } },
  { name: 'an unknown scripted model', key: 'model', where: 'user', content: { model: 'scripted:nope' } },
  {
    name: 'a compatible model that is not configured',
    key: 'model',
    where: 'user',
    content: { model: 'compatible:local' },
  },
  {
    name: 'a compatible tokenizer file that does not exist',
    key: 'models.0.tokenizer',
    where: 'user',
    content: {
      model: 'compatible:local',
      models: [
        {
          name: 'local',
          baseURL: 'http://127.0.0.1:9/v1',
          modelId: 'm',
          contextWindowTokens: 32768,
          tokenizer: '/nonexistent/tokenizer.json',
        },
      ],
    },
  },
  {
    name: 'a schema version Forge does not know',
    key: 'schemaVersion',
    where: 'user',
    content: '{"schemaVersion": 7}',
  },
  {
    name: 'a bad context mode in the environment',
    key: 'FORGE_CONTEXT_MODE',
    where: 'env',
    env: { FORGE_CONTEXT_MODE: 'loud' },
  },
  {
    name: 'a ratio in the environment that breaks the combination',
    key: 'context.compactTargetRatio',
    where: 'env',
    env: { FORGE_CONTEXT_COMPACT_TARGET_RATIO: '0.9' },
  },
];

describe('1. forge config validate runs the validation every command runs', () => {
  it('rejects every configuration error that makes forge run exit 2, naming the file (or variable) and the key', async () => {
    for (const configCase of configCases) {
      const user = await userSetup(fixture, 'validate');
      const userFile = path.join(user.forgeHome, 'config.json');
      const projectFile = path.join(user.workspace, '.forge', 'config.json');
      const file = configCase.where === 'project' ? projectFile : userFile;
      if (configCase.content !== undefined) {
        await mkdir(path.dirname(file), { recursive: true });
        const text =
          typeof configCase.content === 'string'
            ? configCase.content
            : JSON.stringify({ schemaVersion: 1, ...configCase.content }, null, 2);
        await writeFile(file, text);
      }
      const env = configCase.env ?? {};
      const command = await user.forge(
        configCase.key === 'model' || configCase.key.startsWith('models.')
          ? ['run', 'hello']
          : ['run', '--model', 'scripted:demo', 'hello'],
        env,
      );
      expect(command.code, `${configCase.name}: forge run\n${command.stderr}`).toBe(2);
      const validated = await user.forge(['config', 'validate'], env);
      const where = configCase.where === 'env' ? (Object.keys(env)[0] ?? '') : file;
      expect(validated.code, `${configCase.name}:\n${validated.stdout}${validated.stderr}`).toBe(1);
      const problems = validated.stdout.split('\n').filter((line) => line.startsWith('  '));
      const problem = problems.find((line) => line.includes(where) && line.includes(configCase.key));
      expect(
        problem,
        `${configCase.name}: no problem naming ${where} and ${configCase.key}:\n${validated.stdout}`,
      ).toBeDefined();
      if (configCase.where !== 'env') expect(validated.stdout, configCase.name).toContain(`invalid  ${file}\n`);
    }
  });
});

describe('2. a closed stdout never half-writes a run', () => {
  it('forge run --json | head -c 100: cancelled and recorded (or completed), the lock released, and the next --last run starts with no recovery notice', async () => {
    const user = await userSetup(fixture, 'broken-pipe');
    for (const name of ['a', 'b', 'c']) await writeFile(path.join(user.workspace, `${name}.txt`), `file ${name}\n`);
    const bin = fixture.bundle().bin;
    const piped = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(
        'bash',
        [
          '-c',
          `"${process.execPath}" "${bin}" run --json "Summarise the workspace" | head -c 100 > /dev/null; exit "\${PIPESTATUS[0]}"`,
        ],
        { cwd: user.workspace, env: user.env, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
    const sessions = await storedSessions(user.forgeHome);
    expect(sessions).toHaveLength(1);
    const sessionId = sessions[0] ?? '';
    expect(existsSync(path.join(user.forgeHome, 'sessions', sessionId, 'lock')), 'the lock is released').toBe(false);
    const first = (await user.session(sessionId)).runs.map((run) => run.status);
    // Either the reader left while the run went on (cancelled, exit 141) or after it ended (completed, exit 0).
    if (piped.code === 0) expect(first).toEqual(['completed']);
    else {
      expect(piped.code, piped.stderr).toBe(141);
      expect(first).toEqual(['cancelled']);
      expect(piped.stderr).toContain('stdout was closed before the run ended');
    }

    const next = await user.forge(['run', '--last', 'Again']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toMatch(/Recovered|interrupted|did not finish|warning/);
    expect((await user.session(sessionId)).runs.map((run) => run.status)).toEqual([...first, 'completed']);
  });
});

describe('3. a mistyped model id is warned about', () => {
  it('forge run --model openai:gpt-5.l over HTTP: says the id is unknown, the window and counter assumed, that costs are not tracked, and the nearest id', async () => {
    const provider = await startLoopbackProvider();
    try {
      const user = await userSetup(fixture, 'unknown-model');
      provider.enqueue(turn({ text: ['Hello.'], usage: { inputTokens: 100, outputTokens: 3 } }));
      const env = { OPENAI_API_KEY: 'sk-test-0123456789abcdef', OPENAI_BASE_URL: provider.baseURL };
      const run = await user.forge(['run', '--model', 'openai:gpt-5.l', 'Say hello'], env);
      expect(run.code, run.stderr).toBe(0);
      const warning = run.stderr.split('\n').find((line) => line.startsWith('forge: warning: openai:gpt-5.l'));
      expect(warning, run.stderr).toBeDefined();
      expect(warning).toContain('is not a model Forge knows');
      expect(warning).toContain('32,768-token window');
      expect(warning).toContain('o200k_base');
      expect(warning).toContain('costs are not tracked');
      expect(warning).toContain('Did you mean openai:gpt-5.1?');

      // The window it names is the one in force: the configured fallback.
      const measured = await user.forge(['context', '--model', 'deepseek:deepseek-chatt'], {
        FORGE_CONTEXT_FALLBACK_WINDOW_TOKENS: '65536',
      });
      expect(measured.code, measured.stderr).toBe(0);
      expect(measured.stderr).toContain('assumes a 65,536-token window');
      expect(measured.stderr).toContain('Did you mean deepseek:deepseek-chat?');
      expect(measured.stdout).toMatch(/Window\s+65,536 tokens/);

      provider.enqueue(turn({ text: ['Hello.'], usage: { inputTokens: 100, outputTokens: 3 } }));
      const known = await user.forge(['run', '--model', 'openai:gpt-5.1', 'Say hello'], env);
      expect(known.code, known.stderr).toBe(0);
      expect(known.stderr).not.toContain('is not a model Forge knows');
    } finally {
      await provider.close();
    }
  });
});

describe('4. a project file never switches the model silently', () => {
  it('the project model is named as the project’s in the run’s first line, in config show and in the missing-key error', async () => {
    const provider = await startLoopbackProvider();
    try {
      const user = await userSetup(fixture, 'project-model');
      await user.writeConfig({ model: 'scripted:demo' });
      const projectFile = path.join(user.workspace, '.forge', 'config.json');
      await mkdir(path.dirname(projectFile), { recursive: true });
      await writeFile(projectFile, JSON.stringify({ schemaVersion: 1, model: 'openai:gpt-5.1' }));

      const keyless = await user.forge(['run', 'Say hello']);
      expect(keyless.code).toBe(2);
      expect(keyless.stderr).toContain(`model "openai:gpt-5.1" from ${projectFile} (project configuration)`);
      expect(keyless.stderr).toContain('OPENAI_API_KEY is not set');

      const shown = await user.forge(['config', 'show']);
      expect(shown.stdout).toMatch(
        new RegExp(`^model +openai:gpt-5\\.1 +project ${projectFile.replace(/[.]/g, '\\.')}$`, 'm'),
      );

      provider.enqueue(turn({ text: ['Hello.'], usage: { inputTokens: 100, outputTokens: 3 } }));
      const env = { OPENAI_API_KEY: 'sk-test-0123456789abcdef', OPENAI_BASE_URL: provider.baseURL };
      const run = await user.forge(['run', 'Say hello'], env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr.split('\n')[0]).toBe(
        `forge: warning: the model openai:gpt-5.1 is chosen by the project file ${projectFile}, not by your configuration; pass --model to choose another, or remove "model" from that file`,
      );

      const chosen = await user.forge(['run', '--model', 'scripted:demo', 'Say hello'], env);
      expect(chosen.code).toBe(0);
      expect(chosen.stderr).not.toContain('chosen by the project file');
    } finally {
      await provider.close();
    }
  });
});

describe('5. import codex --session files the session where it ran', () => {
  it('without --cwd the imported session belongs to the current directory, so forge run --last there continues it', async () => {
    const user = await userSetup(fixture, 'import-cwd');
    const rollout = fileURLToPath(
      new URL('../../../packages/codex/src/rollout/fixtures/codex-0.169-bugfix.jsonl', import.meta.url),
    );
    const imported = await user.forge(['import', 'codex', rollout, '--session']);
    expect(imported.code, imported.stderr).toBe(0);
    const sessionId = /^session: (\S+)/m.exec(imported.stderr)?.[1] ?? '';
    expect(sessionId).not.toBe('');
    expect(imported.stderr).toMatch(/the rollout was recorded in \S+; the session is filed under /);
    expect((await user.session(sessionId)).workspaceRoot).toBe(user.workspace);

    const next = await user.forge(['run', '--last', '--model', 'scripted:demo', 'Carry on']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`session: ${sessionId}`);
  });
});

describe('7. prices that can be true', () => {
  const prices = { 'compatible:small': { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 } };

  it('forge context prices the request the next step sends after compacting, not one that can never be sent', async () => {
    const user = await userSetup(fixture, 'price-after-compaction');
    const models = [{ name: 'small', baseURL: 'http://127.0.0.1:9/v1', modelId: 'm', contextWindowTokens: 32_768 }];
    await user.writeConfig({ models, prices });
    const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta'];
    const lines = Array.from({ length: 900 }, (_, line) =>
      Array.from(
        { length: 12 },
        (_, word) => `${words[(line * 7 + word) % words.length]}${(line * 31 + word * 17) % 997}`,
      ).join(' '),
    );
    await writeFile(path.join(user.workspace, 'a.txt'), `${lines.join('\n')}\n`);
    for (const request of ['turn 1', 'turn 2', 'turn 3']) {
      const run = await user.forge([
        'run',
        '--model',
        'scripted:demo',
        ...(request === 'turn 1' ? [] : ['--last']),
        request,
      ]);
      expect(run.code, run.stderr).toBe(0);
    }
    const measured = await user.forge(['context', '--last', '--model', 'compatible:small', '--json']);
    expect(measured.code, measured.stderr).toBe(0);
    const report = JSON.parse(measured.stdout) as {
      decision: { kind: string };
      budget: { availableInputTokens: number; estimate: { tokens: number } };
      nextRequestCost: { inputTokens: number; coldInput: number };
      compactedBeforeSending?: { tokensBefore: number; tokensAfter: number };
    };
    expect(report.decision.kind).toBe('compact');
    expect(report.budget.estimate.tokens).toBeGreaterThan(report.budget.availableInputTokens);
    expect(report.compactedBeforeSending?.tokensBefore).toBe(report.budget.estimate.tokens);
    const after = report.compactedBeforeSending?.tokensAfter ?? Number.POSITIVE_INFINITY;
    expect(after).toBeLessThan(report.budget.availableInputTokens);
    expect(report.nextRequestCost.inputTokens).toBe(after);
    expect(report.nextRequestCost.coldInput).toBeCloseTo((after * 2) / 1_000_000, 12);
    const text = await user.forge(['context', '--last', '--model', 'compatible:small']);
    expect(text.stdout).toMatch(/as sent after the compaction the next step makes first \([\d,]+ → [\d,]+\)/);
  });

  it("the REPL footer's next-request price is the one /context shows at the same moment", async () => {
    ensureTmux();
    const provider = await startLoopbackProvider();
    try {
      const user = await userSetup(fixture, 'footer-price');
      const models = [
        {
          name: 'small',
          baseURL: provider.baseURL,
          modelId: 'm',
          contextWindowTokens: 32_768,
          apiKeyVariable: 'LOOPBACK_KEY',
        },
      ];
      await user.writeConfig({ models, prices });
      provider.enqueue(
        turn({ text: ['Hello there.'], usage: { inputTokens: 3000, cachedInputTokens: 0, outputTokens: 40 } }),
      );
      const terminal = TmuxTerminal.start({
        command: [process.execPath, fixture.bundle().bin, '--model', 'compatible:small'],
        cwd: user.workspace,
        env: { ...user.env, LOOPBACK_KEY: 'sk-loopback-0123456789', TERM: 'xterm-256color' },
      });
      try {
        await terminal.waitFor((screen) => screen.includes('Type a request'), 20_000, 'the REPL banner');
        terminal.enter('Say hello');
        const footer = await terminal.waitFor((screen) => / next ~\$[\d.]+/.test(screen), 20_000, 'the priced footer');
        const next = [...footer.matchAll(/ next ~(\$[\d.]+)/g)].at(-1)?.[1];
        terminal.enter('/context');
        const shown = await terminal.waitFor(
          (screen) => screen.includes('output up to'),
          20_000,
          'the /context report',
        );
        const line = /Next request {5}input (\$[\d.]+) with a cold cache(?:, (\$[\d.]+) if)?/.exec(shown);
        expect(line, shown).not.toBeNull();
        expect(line?.[2] ?? line?.[1]).toBe(next);
        terminal.enter('/exit');
        expect(await terminal.exitCode(20_000)).toBe(0);
      } finally {
        terminal.close();
      }
    } finally {
      await provider.close();
    }
  });
});

describe('8. a FORGE_HOME that cannot be used', () => {
  it('one that cannot be created (/proc/forgehome) exits 2 with guidance, and a read-only one that exists is called not writable', async () => {
    const user = await userSetup(fixture, 'forge-home');
    const proc = await user.forge(['run', '--model', 'scripted:demo', 'hi'], { FORGE_HOME: '/proc/forgehome' });
    expect(proc.stderr).toBe(
      'forge: error: FORGE_HOME /proc/forgehome cannot be created: the file system there does not allow it (ENOENT) in /proc. Point FORGE_HOME (or --forge-home) at a directory you can write.\n',
    );
    expect(proc.code).toBe(2);

    // Root ignores permission bits, so as root the binary runs as the unprivileged user `nobody`.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    const root = await fixture.temporaryDirectory('read-only-home');
    const readOnly = path.join(root, 'home');
    await mkdir(readOnly);
    await chmod(root, 0o755);
    await chmod(readOnly, 0o555);
    const existing = await spawnForge(fixture.bundle().bin, ['run', '--model', 'scripted:demo', 'hi'], {
      cwd: root,
      env: { ...user.env, FORGE_HOME: readOnly },
      ...(asUser === undefined ? {} : { user: asUser }),
    });
    expect(existing.stderr).toBe(
      `forge: error: FORGE_HOME ${readOnly} is not writable: permission denied (EACCES) at ${readOnly}. Point FORGE_HOME (or --forge-home) at a directory you can write, or fix the permissions of ${readOnly}.\n`,
    );
    expect(existing.code).toBe(2);
  });
});

describe('9. the REPL keeps the whole line on screen when the terminal is resized', () => {
  it('120 → 60 columns with a long CJK/ASCII/combining-accent line and the cursor 11 places left: one copy of the line, all of it, and the next key lands at the cursor', async () => {
    ensureTmux();
    const user = await userSetup(fixture, 'resize');
    const terminal = TmuxTerminal.start({
      command: [process.execPath, fixture.bundle().bin, '--model', 'scripted:demo'],
      cwd: user.workspace,
      env: { ...user.env, TERM: 'xterm-256color' },
      columns: 120,
    });
    try {
      await terminal.waitFor((screen) => screen.includes('Type a request'), 20_000, 'the REPL banner');
      const line =
        'abc 日本語のテキスト mixed with ASCII words and more 中文字符 here i\u0308 then even more words to make it long enough to wrap past 120 columns 漢字 end-of-line-marker';
      terminal.type(line);
      await terminal.waitFor((screen) => screen.includes('end-of-line-marker'), 10_000, 'the typed line');
      for (let step = 0; step < 11; step += 1) terminal.press('Left');
      await new Promise((resolve) => setTimeout(resolve, 300));
      terminal.resize(60);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(terminal.screen()).toContain(`› ${line}`);
      terminal.type('X');
      const edited = `› ${line.slice(0, -11)}X${line.slice(-11)}`;
      const screen = await terminal.waitFor((text) => text.includes(edited), 10_000, 'the edited line');
      expect(screen.split('\n').filter((row) => row.startsWith('› abc'))).toHaveLength(1);
      // Ctrl-E, Ctrl-U empty the line; Ctrl-D on an empty line leaves.
      terminal.press('C-e');
      terminal.press('C-u');
      terminal.press('C-d');
      expect(await terminal.exitCode(20_000)).toBe(0);
    } finally {
      terminal.close();
    }
  });
});

describe('11. a manual compaction summarizes only completed turns, each whole', () => {
  it('forge compact --last never puts the latest request in the checkpoint while keeping its answer verbatim', async () => {
    const user = await userSetup(fixture, 'compact-turns');
    const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma', 'theta'];
    const lines = Array.from({ length: 900 }, (_, line) =>
      Array.from(
        { length: 12 },
        (_, word) => `${words[(line * 5 + word) % words.length]}${(line * 13 + word * 7) % 991}`,
      ).join(' '),
    );
    await writeFile(path.join(user.workspace, 'a.txt'), `${lines.join('\n')}\n`);
    for (const request of ['turn 1', 'turn 2']) {
      const run = await user.forge([
        'run',
        '--model',
        'scripted:demo',
        ...(request === 'turn 1' ? [] : ['--last']),
        request,
      ]);
      expect(run.code, run.stderr).toBe(0);
    }
    const compacted = await user.forge(['compact', '--last', '--model', 'scripted:demo']);
    expect(compacted.code, compacted.stderr).toBe(0);
    const sessions = await storedSessions(user.forgeHome);
    const session = await user.session(sessions[0] ?? '');
    const tailStart = session.checkpoint?.source.tailStart ?? -1;
    expect(tailStart).toBeGreaterThan(0);
    // The verbatim tail starts at a request, or there is none: no answer is kept without the request it answers.
    if (tailStart < session.messages.length) expect(session.messages[tailStart]?.role).toBe('user');
    else expect(tailStart).toBe(session.messages.length);
  });
});

describe('10. the smaller things a user trips on', () => {
  it('plural counts, no prices asked of scripted:demo, a model switch said on --last, config show columns kept, the HTML header counts runs only', async () => {
    const user = await userSetup(fixture, 'small-things');
    await writeFile(path.join(user.workspace, 'notes.txt'), 'alpha\n');
    const script = await user.writeModelScript([{ text: 'One.' }]);
    const first = await user.forge(['run', '--model', 'scripted:file', 'first request'], script);
    expect(first.code, first.stderr).toBe(0);
    for (const request of ['second request', 'third request', 'fourth request']) {
      const run = await user.forge(['run', '--last', '--model', 'scripted:demo', request]);
      expect(run.code, run.stderr).toBe(0);
      if (request === 'second request')
        expect(run.stderr).toContain(
          'forge: note: this session last ran on scripted:file; it continues on scripted:demo (--model scripted:file to stay on it)',
        );
      else expect(run.stderr).not.toContain('this session last ran on');
    }

    // The REPL's recap of four requests: the latest three and "(1 earlier request)".
    const repl = await user.forge(['--last', '--model', 'scripted:demo'], {});
    expect(repl.stdout).toContain('(1 earlier request)');
    expect(repl.stdout).not.toContain('earlier requests)');

    const measured = await user.forge(['context', '--last', '--model', 'scripted:demo']);
    expect(measured.stdout).toContain('Prices           none: a scripted model is not billed by any provider');
    expect(measured.stdout).not.toContain('set "prices"');

    const compacted = await user.forge(['compact', '--last', '--model', 'scripted:demo']);
    expect(compacted.code, compacted.stderr).toBe(0);
    const page = path.join(user.workspace, 'report.html');
    const sessionId = (await storedSessions(user.forgeHome))[0] ?? '';
    const inspected = await user.forge(['inspect', sessionId, '--html', page]);
    expect(inspected.code, inspected.stderr).toBe(0);
    const html = await readFile(page, 'utf8');
    expect(html).toMatch(/ · 4 runs, 1 manual compaction · /);

    const long = `compatible:${'a-very-long-model-name-'.repeat(3)}x`;
    await user.writeConfig({ model: long });
    const shown = await user.forge(['config', 'show']);
    const sourceColumn = (row: string) => row.lastIndexOf('  ') + 2;
    const rows = shown.stdout.split('\n');
    const header = rows.find((row) => row.startsWith('key')) ?? '';
    const modelRow = rows.findIndex((row) => row.startsWith('model '));
    expect(rows[modelRow]).toContain(long);
    // The long value has the row to itself; its source sits in the source column on the next row, as every other row's does.
    expect(rows[modelRow + 1]?.trimStart()).toBe(`user ${path.join(user.forgeHome, 'config.json')}`);
    expect(rows[modelRow + 1]?.indexOf('user')).toBe(header.indexOf('source'));
    expect(sourceColumn(rows[modelRow + 2] ?? '')).toBeGreaterThan(0);
  });
});

describe('10. Tab completion lists candidates once', () => {
  it('/model openai:gpt-5 then Tab Tab lists the ids without repeating /model before each', async () => {
    ensureTmux();
    const user = await userSetup(fixture, 'tab');
    const terminal = TmuxTerminal.start({
      command: [process.execPath, fixture.bundle().bin, '--model', 'scripted:demo'],
      cwd: user.workspace,
      env: { ...user.env, TERM: 'xterm-256color' },
    });
    try {
      await terminal.waitFor((screen) => screen.includes('Type a request'), 20_000, 'the REPL banner');
      terminal.type('/model openai:gpt-5.');
      terminal.press('Tab');
      terminal.press('Tab');
      const screen = await terminal.waitFor((text) => /openai:gpt-5\.1 {2}/.test(text), 10_000, 'the candidates');
      const listed = screen.split('\n').find((row) => /openai:gpt-5\.1 {2}/.test(row)) ?? '';
      expect(listed).not.toContain('/model');
      expect(listed.startsWith('openai:gpt-5.')).toBe(true);
      terminal.press('C-u');
      terminal.press('C-d');
      expect(await terminal.exitCode(20_000)).toBe(0);
    } finally {
      terminal.close();
    }
  });
});
