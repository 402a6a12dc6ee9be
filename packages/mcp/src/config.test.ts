import { describe, expect, it } from 'vitest';
import { mcpServerConfigListSchema, mcpServerConfigSchema, mcpServerEnvValues } from './config.js';

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
