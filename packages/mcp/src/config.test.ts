import { describe, expect, it } from 'vitest';
import {
  isRemoteServerConfig,
  mcpServerConfigListSchema,
  mcpServerConfigSchema,
  mcpServerEnvValues,
  mcpServerSecretValues,
  resolveServerHeaders,
} from './config.js';

describe('mcpServerConfigSchema', () => {
  it('accepts a full server entry', () => {
    const entry = {
      name: 'git-tools',
      command: 'npx',
      args: ['-y', 'some-server'],
      env: { TOKEN: 'abc' },
      cwd: '/tmp',
      startupTimeoutMs: 5_000,
      toolTimeoutMs: 30_000,
      risk: 'read',
    };
    expect(mcpServerConfigSchema.parse(entry)).toEqual(entry);
  });

  it('rejects names that cannot prefix a tool name, unknown keys and an empty command, saying where', () => {
    const result = mcpServerConfigSchema.safeParse({ name: 'my server', command: '', extra: true });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['name', 'command', '']));
    expect(result.error?.issues.find((issue) => issue.path[0] === 'name')?.message).toContain('prefixes the names');
  });

  it('rejects two servers with the same name', () => {
    const result = mcpServerConfigListSchema.safeParse([
      { name: 'a', command: 'x' },
      { name: 'a', command: 'y' },
    ]);
    expect(result.error?.issues[0]).toMatchObject({ path: [1, 'name'] });
  });

  it('lists env values so they can be redacted', () => {
    expect(
      mcpServerEnvValues([
        { name: 'a', command: 'x', env: { TOKEN: 'secret-1' } },
        { name: 'b', command: 'y' },
      ]),
    ).toEqual(['secret-1']);
  });
});

describe('remote servers', () => {
  it('accept a url with headers, literal or read from a variable, and resolve them', () => {
    const entry = {
      name: 'tracker',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: { env: 'TRACKER_TOKEN', prefix: 'Bearer ' }, 'X-Region': 'eu' },
    };
    const parsed = mcpServerConfigSchema.parse(entry);
    expect(isRemoteServerConfig(parsed)).toBe(true);
    expect(resolveServerHeaders(parsed, { TRACKER_TOKEN: 'abc123' })).toEqual({
      headers: { Authorization: 'Bearer abc123', 'X-Region': 'eu' },
      missing: [],
    });
    expect(resolveServerHeaders(parsed, {}).missing).toEqual([{ header: 'Authorization', variable: 'TRACKER_TOKEN' }]);
    expect(mcpServerSecretValues([parsed], { TRACKER_TOKEN: 'abc123' })).toEqual(['abc123']);
  });

  it('refuse a credential written in the file, stdio fields beside a url, and neither command nor url', () => {
    const paths = (value: unknown) =>
      mcpServerConfigSchema
        .safeParse(value)
        .error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? [];
    expect(paths({ name: 'a', url: 'https://x.example/mcp', headers: { 'X-Api-Key': 'k' } })[0]).toMatch(
      /^headers\.X-Api-Key: .*environment variable/,
    );
    expect(paths({ name: 'a', url: 'https://x.example/mcp', command: 'node' })[0]).toMatch(/^command: .*remote/);
    expect(paths({ name: 'a', command: 'node', headers: {} })[0]).toMatch(/^headers: .*remote server/);
    expect(paths({ name: 'a' })[0]).toMatch(/^: give either "command".*or "url"/);
    expect(paths({ name: 'a', url: 'ftp://x.example/' })[0]).toMatch(/^url: give the http/);
  });
});
