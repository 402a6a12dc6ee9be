import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { ensureBubblewrap } from '@forge/cli/test-helpers/debian-programs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup, type UserSetup } from './support/bundle.js';

/*
 * The issue-27 probe through the built binary: Forge's environment holds a provider key and a
 * database password, a server listens on 127.0.0.1, and one scripted run_command under
 * `--approval workspace-auto` and otherwise default settings tries to read them, reach it and
 * write where it must not. With bubblewrap it gets none of that but still works in the workspace;
 * without it (FORGE_BWRAP naming no program) it still gets the clean environment, and Forge says
 * once that commands run unconfined.
 */

const fixture = useBundle('bundle-sandbox');
let server: Server;
let port: number;

beforeAll(async () => {
  await ensureBubblewrap();
  server = createServer((socket) => socket.end('reached the host server\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
}, 300_000);

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const SECRETS = { OPENAI_API_KEY: 'sk-proj-bundle-probe-0123456789abcdef', DB_PASSWORD: 'probe-db-password-42' };

/** The probe; `unconfined` leaves out the writes outside the workspace, which nothing would stop. */
function probeScript(home: string, unconfined: boolean): string {
  const connect = `require("net").connect(${port}, "127.0.0.1").on("data", (d) => process.stdout.write(d)).on("error", (e) => console.log("connect failed: " + e.code))`;
  const escapes = [
    `echo x > ${home}/written-by-command || echo "home refused"`,
    'echo x > /etc/forge-bundle-probe || echo "etc refused"',
    'echo x >> AGENTS.md || echo "agents refused"',
    'echo x > .git/hooks/pre-commit || echo "hooks refused"',
  ];
  return [
    'env > env.txt',
    `${process.execPath} -e '${connect}'`,
    ...(unconfined ? [] : escapes),
    'echo ok > inside.txt && echo "workspace written"',
    'git status --short',
  ].join('; ');
}

async function runProbe(user: UserSetup, extra: Record<string, string> = {}) {
  const unconfined = extra['FORGE_BWRAP'] !== undefined;
  execFileSync('git', ['init', '-q', user.workspace]);
  await writeFile(path.join(user.workspace, 'AGENTS.md'), 'Probe instructions.\n');
  const home = user.env['HOME'] ?? '';
  const script = await user.writeModelScript([
    { toolCalls: [{ toolName: 'run_command', input: { argv: ['sh', '-c', probeScript(home, unconfined)] } }] },
    { text: 'probed' },
  ]);
  const run = await user.forge(
    ['run', '--model', 'scripted:file', '--approval', 'workspace-auto', 'Probe the sandbox'],
    { ...SECRETS, ...script, ...extra },
  );
  expect(run.code).toBe(0);
  const transcript = await user.session(sessionIdOf(run.stderr));
  const [result] = toolResultTexts(transcript.messages);
  return { run, result: result ?? '', environment: readFileSync(path.join(user.workspace, 'env.txt'), 'utf8'), home };
}

describe('a run_command probe through the bundle', () => {
  it('with bubblewrap and default settings: no secret, no 127.0.0.1, no write outside the workspace or to AGENTS.md and .git/hooks; the workspace and git status work', async () => {
    const user = await userSetup(fixture, 'sandboxed');
    const { run, result, environment, home } = await runProbe(user);
    expect(environment).not.toMatch(/OPENAI_API_KEY|DB_PASSWORD|sk-proj|probe-db-password/);
    expect(environment).toMatch(/^PATH=/m);
    expect(environment).not.toContain(`HOME=${home}\n`);
    expect(result).not.toContain('reached the host server');
    expect(result).toContain('connect failed: ECONNREFUSED');
    for (const line of [
      'home refused',
      'etc refused',
      'agents refused',
      'hooks refused',
      'workspace written',
      '?? env.txt',
      '?? inside.txt',
    ])
      expect(result).toContain(line);
    expect(existsSync(path.join(home, 'written-by-command'))).toBe(false);
    expect(existsSync('/etc/forge-bundle-probe')).toBe(false);
    expect(readFileSync(path.join(user.workspace, 'AGENTS.md'), 'utf8')).toBe('Probe instructions.\n');
    expect(existsSync(path.join(user.workspace, '.git/hooks/pre-commit'))).toBe(false);
    expect(run.stderr).not.toContain('without a sandbox');
    const shown = await user.forge(['config', 'show']);
    expect(shown.stdout).toMatch(/Sandbox in force {2}workspace-write with bubblewrap \(\S+bwrap\), network off/);
  });

  it('without bubblewrap: the same clean environment, and the notice once', async () => {
    const user = await userSetup(fixture, 'unconfined');
    const { run, environment } = await runProbe(user, { FORGE_BWRAP: '/nonexistent/bwrap' });
    expect(environment).not.toMatch(/OPENAI_API_KEY|DB_PASSWORD|sk-proj|probe-db-password/);
    const notices = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('forge: warning: commands run without a sandbox'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('bubblewrap (/nonexistent/bwrap) was not found');
    expect(notices[0]).toContain('approvals are the only guard');
    expect(notices[0]).toContain('apt-get install bubblewrap');
    const shown = await user.forge(['config', 'show'], { FORGE_BWRAP: '/nonexistent/bwrap' });
    expect(shown.stdout).toContain(
      'Sandbox in force  none: bubblewrap (/nonexistent/bwrap) was not found (approvals are the only guard)',
    );
  });
});
