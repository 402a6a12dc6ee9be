import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApprovalGate } from '../approval.js';
import { call, makeTempDirectory, outputText } from '../temp-workspace.test-helpers.js';
import { ensureBubblewrap } from '../testing/debian-program.js';
import { createRunCommandTool } from '../tools/run-command.js';
import { createCommandSandbox, type CommandSandboxOptions } from './command-sandbox.js';

/*
 * run_command inside bubblewrap, as a user's default settings run it: what a command can read of
 * Forge's environment, reach on the network and write, and that timeouts and cancelling still
 * leave nothing running. Processes are found by a unique word in their command line, since the
 * pids a command sees are those of its own PID namespace.
 */

let bubblewrap: string;
let server: Server;
let port: number;

beforeAll(async () => {
  bubblewrap = await ensureBubblewrap();
  server = createServer((socket) => socket.end('hello from the host\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
}, 300_000);

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const FORGE_ENV = {
  PATH: process.env['PATH'] ?? '/usr/bin:/bin',
  LANG: 'C.UTF-8',
  OPENAI_API_KEY: 'sk-proj-forge-own-key-123456',
  DB_PASSWORD: 'hunter2-db',
  MY_SETTING: 'visible',
  CUSTOM_CRED: 'declared-secret',
};

async function setUp(settings: CommandSandboxOptions['settings'] = {}, extra: Partial<CommandSandboxOptions> = {}) {
  const root = await makeTempDirectory('forge-sandbox-');
  const sandbox = createCommandSandbox({
    root,
    settings,
    env: FORGE_ENV,
    secretNames: ['CUSTOM_CRED'],
    bubblewrap,
    ...extra,
  });
  return { root, sandbox, tool: createRunCommandTool({ root, sandbox }) };
}

const sh = (script: string) => ({ argv: ['sh', '-c', script] });

/** Pids of live processes whose command line contains `word`, this test process excluded. */
function processesWith(word: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const state = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state !== 'Z' && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(word)) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

describe('the environment of a command', () => {
  it('holds the allow-list, a sandbox HOME and TMPDIR, and no secret', async () => {
    const { tool } = await setUp({ env: ['MY_SETTING', 'DB_PASSWORD'] });
    const shown = outputText(await call(tool, { argv: ['env'] }));
    expect(shown).toContain('LANG=C.UTF-8');
    expect(shown).toContain('MY_SETTING=visible');
    expect(shown).not.toMatch(/OPENAI_API_KEY|sk-proj|DB_PASSWORD|hunter2|CUSTOM_CRED|declared-secret/);
    const home = /^HOME=(.*)$/m.exec(shown)?.[1] ?? '';
    const temporary = /^TMPDIR=(.*)$/m.exec(shown)?.[1] ?? '';
    expect(home).toBe(path.join(temporary, 'home'));
    expect(temporary.startsWith(tmpdir())).toBe(true);
    expect(existsSync(temporary)).toBe(false);
  });

  it('keeps secrets out with the sandbox off too, passing everything else', async () => {
    const { tool } = await setUp({ mode: 'off' });
    const shown = outputText(await call(tool, { argv: ['env'] }));
    expect(shown).toContain('MY_SETTING=visible');
    expect(shown).not.toMatch(/OPENAI_API_KEY|DB_PASSWORD|CUSTOM_CRED/);
  });

  it('keeps the clean environment when bubblewrap is missing, and then does not claim to confine', async () => {
    const { tool, sandbox } = await setUp({}, { bubblewrap: '/nonexistent/bwrap' });
    expect(sandbox.status.enforcement).toMatchObject({ kind: 'none', reason: 'missing' });
    expect(tool.description).not.toContain('sandbox');
    const shown = outputText(await call(tool, { argv: ['env'] }));
    expect(shown).not.toMatch(/OPENAI_API_KEY|DB_PASSWORD|MY_SETTING/);
    expect(shown).toMatch(/^TMPDIR=/m);
  });
});

describe('the network', () => {
  const connect = () => ({
    argv: [
      process.execPath,
      '-e',
      `require("net").connect(${port}, "127.0.0.1").on("data", (d) => process.stdout.write(d)).on("error", (e) => { console.error(e.message); process.exit(7); })`,
    ],
  });

  it('is off: a server on 127.0.0.1 cannot be reached, and the tool error says why and how to ask', async () => {
    const { tool } = await setUp();
    expect(tool.description).toContain('the network is off');
    const result = await call(tool, connect());
    expect(result.output.type).toBe('error-text');
    expect(outputText(result)).not.toContain('hello from the host');
    expect(outputText(result)).toContain('[sandbox: the network is off in the sandbox');
    expect(outputText(result)).toContain('"sandbox": "network"');
    expect(result.metadata).toMatchObject({ exitCode: 7, sandboxDenial: 'network' });
  });

  it('is on for a call approved to ask for it, and with sandbox.network', async () => {
    const { tool } = await setUp();
    expect(tool.escalation?.({ ...connect(), sandbox: 'network' })).toEqual({
      id: 'network',
      label: 'leave the sandbox: network on',
    });
    expect(outputText(await call(tool, { ...connect(), sandbox: 'network' }))).toContain('hello from the host');
    const open = await setUp({ network: true });
    expect(open.tool.description).not.toContain('network is off');
    expect(open.tool.escalation?.({ ...connect(), sandbox: 'network' })).toBeUndefined();
    expect(outputText(await call(open.tool, connect()))).toContain('hello from the host');
  });
});

describe('writes', () => {
  it('go into the workspace, not to HOME, /etc, AGENTS.md, .git or .forge, and git status still runs', async () => {
    const { root, tool } = await setUp();
    execFileSync('git', ['init', '-q', root]);
    await writeFile(path.join(root, 'AGENTS.md'), 'Be careful.\n');
    const probe = `probe-${randomUUID()}`;
    const script = [
      'echo ok > inside.txt && mkdir -p src/new && echo ok > src/new/file.txt && echo "workspace ok"',
      `echo x > ${homedir()}/${probe} || echo "home refused"`,
      `echo x > /etc/${probe} || echo "etc refused"`,
      'echo x >> AGENTS.md || echo "agents refused"',
      'echo x > .git/hooks/pre-commit || echo "hooks refused"',
      'git config core.hooksPath evil || echo "git config refused"',
      'mkdir -p .forge || echo "forge refused"',
      'echo x > "$TMPDIR/scratch" && echo "tmp ok"',
      'git status --short',
    ].join('; ');
    const shown = outputText(await call(tool, sh(script)));
    for (const line of [
      'workspace ok',
      'home refused',
      'etc refused',
      'agents refused',
      'hooks refused',
      'git config refused',
      'tmp ok',
    ])
      expect(shown).toContain(line);
    expect(shown).toContain('?? inside.txt');
    expect(readFileSync(path.join(root, 'inside.txt'), 'utf8')).toBe('ok\n');
    expect(readFileSync(path.join(root, 'AGENTS.md'), 'utf8')).toBe('Be careful.\n');
    expect(existsSync(path.join(homedir(), probe))).toBe(false);
    expect(existsSync(`/etc/${probe}`)).toBe(false);
    expect(existsSync(path.join(root, '.git/hooks/pre-commit'))).toBe(false);
    expect(existsSync(path.join(root, '.forge'))).toBe(false);
  });

  it('cannot create AGENTS.md, .forge or .git where they do not exist, and leaves no placeholder behind', async () => {
    const { root, tool } = await setUp();
    const result = await call(tool, sh('echo evil > AGENTS.md'));
    expect(result.output.type).toBe('error-text');
    expect(outputText(result)).toContain('[sandbox: read-only path AGENTS.md');
    expect(outputText(result)).toContain('"sandbox": "none"');
    const shown = outputText(
      await call(tool, sh('mkdir -p .forge/x || echo forge refused; git init -q . || echo git refused; ls -A')),
    );
    expect(shown).toContain('forge refused');
    expect(shown).toContain('git refused');
    expect(await readdir(root)).toEqual([]);
  });

  it('are refused everywhere but TMPDIR in mode read-only', async () => {
    const { root, tool } = await setUp({ mode: 'read-only' });
    const shown = outputText(
      await call(
        tool,
        sh(
          'echo x > "$TMPDIR/a" && echo "tmp ok"; echo x > b || echo "workspace refused"; cat /etc/hostname > /dev/null && echo "reads ok"',
        ),
      ),
    );
    expect(shown).toContain('tmp ok');
    expect(shown).toContain('workspace refused');
    expect(shown).toContain('reads ok');
    expect(await readdir(root)).toEqual([]);
  });

  it('go anywhere for a call approved to run unconfined', async () => {
    const { tool } = await setUp();
    const outside = await makeTempDirectory('forge-outside-');
    expect(tool.escalation?.({ ...sh(''), sandbox: 'none' })?.id).toBe('no-sandbox');
    await call(tool, { ...sh(`echo x > ${outside}/written`), sandbox: 'none' });
    expect(readFileSync(path.join(outside, 'written'), 'utf8')).toBe('x\n');
  });
});

describe('endings inside the sandbox', () => {
  it('a timeout stops the command and everything it started, setsid escapees included', async () => {
    const { tool } = await setUp();
    const word = `forge-timeout-${randomUUID()}`;
    const script = `setsid sh -c 'sleep 30; : ${word}' < /dev/null > /dev/null 2>&1 & sleep 30`;
    const pending = call(tool, { ...sh(script), timeoutMs: 1000 });
    await delay(500);
    expect(processesWith(word).length).toBeGreaterThan(0);
    const result = await pending;
    expect(result.metadata).toMatchObject({ timedOut: true });
    await delay(100);
    expect(processesWith(word)).toEqual([]);
  });

  it('cancelling the run stops the command, even one that ignores SIGTERM', async () => {
    const { tool } = await setUp();
    const word = `forge-cancel-${randomUUID()}`;
    const controller = new AbortController();
    const pending = call(
      tool,
      sh(
        `trap '' TERM; setsid sh -c 'trap "" TERM; sleep 30; : ${word}' < /dev/null > /dev/null 2>&1 & while :; do sleep 1; done`,
      ),
      controller.signal,
    );
    await delay(500);
    expect(processesWith(word).length).toBeGreaterThan(0);
    controller.abort();
    const result = await pending;
    expect(result.metadata).toMatchObject({ cancelled: true });
    await delay(100);
    expect(processesWith(word)).toEqual([]);
  });

  it('a daemon the command leaves behind ends with it', async () => {
    const { tool } = await setUp();
    const word = `forge-daemon-${randomUUID()}`;
    const result = await call(
      tool,
      sh(
        `setsid env -i sh -c 'echo up > "$0"; sleep 30; : ${word}' "$TMPDIR/up" < /dev/null > /dev/null 2>&1 & while [ ! -s "$TMPDIR/up" ]; do sleep 0.05; done; echo started`,
      ),
    );
    expect(outputText(result)).toContain('started');
    await delay(100);
    expect(processesWith(word)).toEqual([]);
  });

  it('output is still capped', async () => {
    const root = await makeTempDirectory('forge-sandbox-');
    const tool = createRunCommandTool({
      root,
      outputCapBytes: 100,
      sandbox: createCommandSandbox({ root, env: FORGE_ENV, bubblewrap }),
    });
    const result = await call(tool, {
      argv: [process.execPath, '-e', 'process.stdout.write("A".repeat(50) + "x".repeat(1000) + "Z".repeat(50))'],
    });
    expect(result.metadata).toMatchObject({ truncated: true, exitCode: 0 });
  });
});

describe('approval of a call that leaves the sandbox', () => {
  it('is asked for on its own under workspace-auto, and a session grant covers only that way out', async () => {
    const { tool } = await setUp();
    const asked: string[] = [];
    const gate = createApprovalGate({
      profile: 'workspace-auto',
      confirm: async (request) => {
        asked.push(`${request.escalation?.label ?? 'plain'}: ${request.summary}`);
        return { kind: 'session' };
      },
    });
    const request = (input: { argv: string[]; sandbox?: 'network' | 'none' }) => {
      const escalation = tool.escalation?.(input);
      return {
        toolCallId: 'c',
        toolName: tool.name,
        input,
        risk: tool.risk,
        summary: tool.describe?.(input) ?? '',
        ...(escalation === undefined ? {} : { escalation }),
      };
    };
    const signal = new AbortController().signal;
    expect(await gate.check(request({ argv: ['true'] }), signal)).toEqual({ kind: 'allow' });
    expect(await gate.check(request({ argv: ['curl', 'x'], sandbox: 'network' }), signal)).toEqual({ kind: 'allow' });
    expect(await gate.check(request({ argv: ['curl', 'y'], sandbox: 'network' }), signal)).toEqual({ kind: 'allow' });
    expect(asked).toEqual(['leave the sandbox: network on: run_command curl x (leave the sandbox: network on)']);
    expect(gate.grants()).toEqual(['run_command:network']);
    const quiet = createApprovalGate({ profile: 'workspace-auto' });
    const denied = await quiet.check(request({ argv: ['make'], sandbox: 'none' }), signal);
    expect(denied).toMatchObject({ kind: 'deny' });
    expect(denied.kind === 'deny' ? denied.reason : '').toContain(
      'this call asks to leave the sandbox: run unconfined',
    );
  });
});
