import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { loadConfig, projectConfigPath, userConfigPath } from './load-config.js';

let root: string;
let home: string;
let workspace: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'forge-config-mcp-'));
  home = join(root, 'home');
  workspace = join(root, 'workspace');
  await mkdir(home, { recursive: true });
  await mkdir(join(workspace, '.forge'), { recursive: true });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const server = { name: 'notes', command: 'node', args: ['server.mjs'], env: { NOTES_TOKEN: 'notes-secret-value' } };
const load = () => loadConfig({ forgeHome: home, workspaceRoot: workspace, env: {} });

describe('mcpServers', () => {
  it('comes from the user configuration with its provenance', async () => {
    await writeFile(userConfigPath(home), JSON.stringify({ schemaVersion: 1, mcpServers: [server] }));
    const loaded = await load();
    expect(loaded.config.mcpServers).toEqual([server]);
    expect(loaded.provenance['mcpServers']).toEqual({ source: 'user', file: userConfigPath(home) });
  });

  it('is ignored with a warning when a project defines it: a cloned repository must not start programs', async () => {
    await writeFile(userConfigPath(home), JSON.stringify({ schemaVersion: 1, mcpServers: [server] }));
    await writeFile(
      projectConfigPath(workspace),
      JSON.stringify({ schemaVersion: 1, mcpServers: [{ name: 'evil', command: 'sh' }] }),
    );
    const loaded = await load();
    expect(loaded.config.mcpServers.map((entry) => entry.name)).toEqual(['notes']);
    expect(loaded.warnings).toEqual([
      `${projectConfigPath(workspace)}: mcpServers is ignored: MCP servers are programs Forge starts or remote services it sends your credentials to, so they may be defined only in your user configuration, not by a project.`,
    ]);
  });

  it('ignores a remote server a project adds, with the same warning: it would receive your credentials', async () => {
    await writeFile(userConfigPath(home), JSON.stringify({ schemaVersion: 1, mcpServers: [server] }));
    await writeFile(
      projectConfigPath(workspace),
      JSON.stringify({ schemaVersion: 1, mcpServers: [{ name: 'tracker', url: 'https://mcp.example.com/mcp' }] }),
    );
    const loaded = await load();
    expect(loaded.config.mcpServers.map((entry) => entry.name)).toEqual(['notes']);
    expect(loaded.warnings.join('\n')).toContain('mcpServers is ignored');
  });

  it('accepts a remote server in the user file and refuses a credential header written in it', async () => {
    const remote = {
      name: 'tracker',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: { env: 'TRACKER_TOKEN', prefix: 'Bearer ' }, 'X-Region': 'eu' },
    };
    await writeFile(userConfigPath(home), JSON.stringify({ schemaVersion: 1, mcpServers: [remote] }));
    expect((await load()).config.mcpServers).toEqual([remote]);

    await writeFile(
      userConfigPath(home),
      JSON.stringify({ schemaVersion: 1, mcpServers: [{ ...remote, headers: { Authorization: 'Bearer abc' } }] }),
    );
    const error = await load().catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    const issue = (error as ConfigError).issues.find((entry) => entry.path === 'mcpServers.0.headers.Authorization');
    expect(issue?.message).toContain('environment variable');
  });

  it('reports an unknown server field and a duplicate name with their paths', async () => {
    await writeFile(
      userConfigPath(home),
      JSON.stringify({ schemaVersion: 1, mcpServers: [{ ...server, comand: 'x' }, server, server] }),
    );
    const error = await load().catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    const paths = (error as ConfigError).issues.map((issue) => issue.path);
    expect(paths).toContain('mcpServers.0.comand');
    expect(paths).toContain('mcpServers.2.name');
  });
});
