import { readdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup } from './support/bundle.js';
import { startServerProcess, type ServerProcess } from './support/http-servers.js';

/*
 * OAuth through the bundled `forge` binary: the project's HTTP test server protects /mcp with
 * the SDK's bearer-auth middleware and serves the SDK's authorization-server router on the same
 * loopback port. `forge mcp login` runs the SDK's client flow against it; the test plays the
 * browser by following the printed address, whose redirect lands on Forge's loopback listener.
 */

const require = createRequire(import.meta.url);
const httpTestServer = path.join(
  path.dirname(require.resolve('@forge/mcp/package.json')),
  'src',
  'test-server',
  'http-test-server.mjs',
);

const fixture = useBundle('bundle-mcp-oauth');
let server: ServerProcess;
let url: string;

beforeAll(async () => {
  // Tokens live 30 s: under the minute before expiry in which Forge refreshes them before connecting.
  server = await startServerProcess([httpTestServer, '--oauth', '--token-seconds=30'], {}, /listening on /);
  url = /listening on (\S+)/.exec(server.output())?.[1] ?? '';
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

async function everyFile(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe('the bundled forge with an MCP server behind OAuth', () => {
  it('auth/basic-dcr: refuses without a token, signs in with forge mcp login (dynamic registration, PKCE, loopback redirect), refreshes, works, and keeps the token out of logs and traces', async () => {
    const user = await userSetup(fixture, 'mcp-oauth');
    await user.writeConfig({ mcpServers: [{ name: 'secure', url, risk: 'read' }] });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'secure__echo', input: { text: 'before login' } }] },
      { text: 'Tried.' },
    ]);
    const afterLogin = await user.writeModelScript([
      { toolCalls: [{ toolName: 'secure__echo', input: { text: 'after login' } }] },
      { text: 'Signed in.' },
    ]);

    const refused = await user.forge(['run', '--model', 'scripted:file', 'Go'], script);
    expect(refused.code).toBe(0);
    const warnings = refused.stderr.split('\n').filter((line) => line.includes('MCP server "secure"'));
    expect(warnings).toEqual([
      'forge: warning: MCP server "secure" needs a login: run `forge mcp login secure`, then start Forge again.',
    ]);
    expect(toolResultTexts((await user.session(sessionIdOf(refused.stderr))).messages)[0]).toContain(
      'Unknown tool "secure__echo"',
    );

    const login = user.start(['mcp', 'login', 'secure']);
    const started = Date.now();
    while (!/^http:\/\/\S+$/m.test(login.output.stdout)) {
      if (Date.now() - started > 20_000) throw new Error(`no authorization address; stderr:\n${login.output.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const authorization = login.output.stdout.trim();
    expect(authorization).toContain('/authorize?');
    expect(new URL(authorization).searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const browser = await fetch(authorization);
    expect(await browser.text()).toContain('Signed in');
    const ended = await login.ended;
    expect(ended.stderr).toContain('Signed in to MCP server "secure"');
    expect(ended.code).toBe(0);

    const tokenFile = path.join(user.forgeHome, 'mcp-auth', 'secure.json');
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(tokenFile))).mode & 0o777).toBe(0o700);
    const firstToken = (JSON.parse(await readFile(tokenFile, 'utf8')) as { tokens: { access_token: string } }).tokens
      .access_token;

    const works = await user.forge(['run', '--model', 'scripted:file', 'Go'], afterLogin);
    expect(works.stderr).not.toContain('forge: warning');
    expect(works.code).toBe(0);
    expect(toolResultTexts((await user.session(sessionIdOf(works.stderr))).messages)).toEqual(['echo: after login']);
    // The 30-second token was refreshed before connecting.
    expect(server.output()).toContain('authorization: token refreshed');
    const stored = JSON.parse(await readFile(tokenFile, 'utf8')) as {
      tokens: { access_token: string; refresh_token: string };
    };
    expect(stored.tokens.access_token).not.toBe(firstToken);

    for (const secret of [firstToken, stored.tokens.access_token, stored.tokens.refresh_token]) {
      for (const output of [refused, ended, works]) expect(output.stdout + output.stderr).not.toContain(secret);
      for (const file of await everyFile(user.forgeHome)) {
        if (file === tokenFile) continue;
        expect(await readFile(file, 'utf8'), file).not.toContain(secret);
      }
    }

    const logout = await user.forge(['mcp', 'logout', 'secure']);
    expect(logout.code).toBe(0);
    expect(logout.stderr).toContain('Signed out of MCP server "secure"');
    await expect(stat(tokenFile)).rejects.toThrow();
    const again = await user.forge(
      ['run', '--model', 'scripted:file', 'Go'],
      await user.writeModelScript([{ text: 'x' }]),
    );
    expect(again.stderr).toContain('needs a login: run `forge mcp login secure`');
  });

  it('forge mcp login names the configured servers for an unknown name, and refuses a stdio server', async () => {
    const user = await userSetup(fixture, 'mcp-oauth-usage');
    await user.writeConfig({
      mcpServers: [
        { name: 'secure', url },
        { name: 'local', command: process.execPath, args: ['-e', '0'] },
      ],
    });
    const unknown = await user.forge(['mcp', 'login', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no MCP server is named "nope"');
    expect(unknown.stderr).toContain('remote servers configured: secure');
    const local = await user.forge(['mcp', 'login', 'local']);
    expect(local.code).toBe(2);
    expect(local.stderr).toContain('only servers with a "url" sign in');
  });
});
