import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup, type UserSetup } from './support/bundle.js';

/*
 * The official MCP reference servers, installed from npm, configured in FORGE_HOME/config.json
 * and started by the bundled `forge` binary exactly as a user's would be. The model is
 * `scripted:file` (FORGE_TEST_MODEL_SCRIPT), so a tool call goes through the real stdio transport.
 */

const require = createRequire(import.meta.url);
const everythingServer = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const filesystemServer = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist',
  'index.js',
);
/** The project's own MCP test server, for the failure modes no official server offers on demand (a crash during a call, a mute start). */
const testServer = path.join(
  path.dirname(require.resolve('@forge/mcp/package.json')),
  'src',
  'test-server',
  'test-server.mjs',
);

const fixture = useBundle('bundle-mcp');

const officialServers = (workspace: string) => [
  { name: 'everything', command: process.execPath, args: [everythingServer, 'stdio'], risk: 'read' },
  { name: 'files', command: process.execPath, args: [filesystemServer, workspace], risk: 'read' },
];

/**
 * The tools a server lists, asked directly with the MCP SDK (not through Forge), by a client that
 * declares what Forge declares: it can answer requests for input (the reference server offers
 * its elicitation tool only to such clients).
 */
async function listedTools(args: readonly string[]): Promise<string[]> {
  const client = new Client(
    { name: 'forge-bundle-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [...args], stderr: 'ignore' }));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

/** `forge run` playing `script`, checked to complete with `answer`; its stderr and the tool results the session stored. */
async function completedRun(
  user: UserSetup,
  script: Record<string, string>,
  answer: string,
): Promise<{ readonly stderr: string; readonly results: string[] }> {
  const run = await user.forge(['run', '--model', 'scripted:file', 'Go'], script);
  expect(run.stderr).not.toContain('forge: error');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(answer);
  return { stderr: run.stderr, results: toolResultTexts((await user.session(sessionIdOf(run.stderr))).messages) };
}

describe('the bundled forge with the official MCP servers', () => {
  it('forge context starts both servers and shows their tools and what their schemas cost', async () => {
    const user = await userSetup(fixture, 'mcp-context');
    await user.writeConfig({ mcpServers: officialServers(user.workspace) });

    const text = await user.forge(['context']);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/mcp:everything\s+[\d,]+\s+\d+ tools/);
    expect(text.stdout).toMatch(/mcp:files\s+[\d,]+\s+\d+ tools/);

    const json = await user.forge(['context', '--json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as {
      toolCount: number;
      toolGroups: { name: string; tools: number; tokens: number }[];
      budget: { estimate: { categories: { toolSchemas: number } } };
    };
    const groups = new Map(report.toolGroups.map((group) => [group.name, group]));
    const everythingTools = await listedTools([everythingServer, 'stdio']);
    const filesTools = await listedTools([filesystemServer, user.workspace]);
    expect(everythingTools).toContain('echo');
    expect(filesTools).toContain('read_text_file');
    expect(groups.get('mcp:everything')?.tools).toBe(everythingTools.length);
    expect(groups.get('mcp:files')?.tools).toBe(filesTools.length);
    for (const group of report.toolGroups) expect(group.tokens).toBeGreaterThan(100);
    // Every tool the servers offer is in the request, and the schema cost is the sum of the groups.
    expect(report.toolCount).toBe((groups.get('built-in')?.tools ?? 0) + everythingTools.length + filesTools.length);
    expect(report.budget.estimate.categories.toolSchemas).toBe(
      report.toolGroups.reduce((total, group) => total + group.tokens, 0),
    );
  });

  it('forge run lets the model call tools of both servers and stores their results in the session', async () => {
    const user = await userSetup(fixture, 'mcp-run');
    await writeFile(path.join(user.workspace, 'notes.txt'), 'The release is on Friday.\n');
    await user.writeConfig({ mcpServers: officialServers(user.workspace) });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'everything__echo', input: { message: 'hello from the bundle' } }] },
      { toolCalls: [{ toolName: 'files__read_text_file', input: { path: path.join(user.workspace, 'notes.txt') } }] },
      { text: 'Both servers answered.' },
    ]);

    const { results } = await completedRun(user, script, 'Both servers answered.');
    expect(results).toEqual(['Echo: hello from the bundle', 'The release is on Friday.\n']);
  });

  it('a server that exits at start-up is a warning naming it; the run goes on with the other tools', async () => {
    const user = await userSetup(fixture, 'mcp-start-crash');
    const missing = path.join(user.workspace, 'no-such-directory');
    await user.writeConfig({
      mcpServers: [
        { name: 'files', command: process.execPath, args: [filesystemServer, missing] },
        { name: 'everything', command: process.execPath, args: [everythingServer, 'stdio'], risk: 'read' },
      ],
    });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'everything__echo', input: { message: 'still here' } }] },
      { text: 'Done.' },
    ]);

    const { stderr, results } = await completedRun(user, script, 'Done.');
    expect(stderr).toContain('forge: warning: MCP server "files"');
    expect(stderr).toContain('exited during start-up');
    expect(stderr).toContain('None of the specified directories are accessible');
    expect(results).toEqual(['Echo: still here']);
  });

  it('a server that does not answer in time is a warning; a tool call that runs too long is an error result, and the run goes on', async () => {
    const user = await userSetup(fixture, 'mcp-timeouts');
    await user.writeConfig({
      mcpServers: [
        { name: 'mute', command: process.execPath, args: [testServer, '--hang-on-start'], startupTimeoutMs: 500 },
        {
          name: 'everything',
          command: process.execPath,
          args: [everythingServer, 'stdio'],
          risk: 'read',
          toolTimeoutMs: 1500,
        },
      ],
    });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'everything__trigger-long-running-operation', input: { duration: 30, steps: 3 } }] },
      { toolCalls: [{ toolName: 'everything__echo', input: { message: 'after the timeout' } }] },
      { text: 'Recovered.' },
    ]);

    const started = Date.now();
    const { stderr, results } = await completedRun(user, script, 'Recovered.');
    // The operation would take 30 s: the run went on without waiting for it.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(stderr).toContain('forge: warning: MCP server "mute"');
    expect(stderr).toContain('did not finish starting within 500 ms');
    expect(results).toHaveLength(2);
    expect(results[0]).toMatch(/1500 ms/);
    expect(results[1]).toBe('Echo: after the timeout');
  });

  it('a server that crashes during a call gives the model an error result and a warning; the run completes', async () => {
    const user = await userSetup(fixture, 'mcp-call-crash');
    await user.writeConfig({
      mcpServers: [
        { name: 'fragile', command: process.execPath, args: [testServer], risk: 'read' },
        { name: 'everything', command: process.execPath, args: [everythingServer, 'stdio'], risk: 'read' },
      ],
    });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'fragile__crash', input: {} }] },
      {
        toolCalls: [
          { toolName: 'fragile__echo', input: { text: 'anyone?' } },
          { toolName: 'everything__echo', input: { message: 'the other server' } },
        ],
      },
      { text: 'Survived the crash.' },
    ]);

    const { stderr, results } = await completedRun(user, script, 'Survived the crash.');
    expect(stderr).toContain('forge: warning: MCP server "fragile"');
    expect(stderr).toContain('stopped unexpectedly');
    expect(stderr).toContain('crashing on purpose');
    expect(results).toHaveLength(3);
    expect(results[0]).toMatch(/fragile/);
    expect(results[1]).toMatch(/stopped unexpectedly|cannot be called/);
    expect(results[2]).toBe('Echo: the other server');
  });
});
