import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { findUnpairedToolCalls, runAgent, type ToolResultPart } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { describe, expect, it } from 'vitest';
import { createApprovalGate } from './approval.js';
import { createWorkspaceTools } from './create-workspace-tools.js';
import { loadInstructions } from './instructions.js';
import { ReadLedger } from './read-ledger.js';
import { makeTempDirectory, writeFiles } from './temp-workspace.test-helpers.js';

describe('createWorkspaceTools', () => {
  it('returns the five tools with their risks and object input schemas', async () => {
    const root = await makeTempDirectory();
    const tools = createWorkspaceTools({ root, ledger: new ReadLedger() });
    expect(tools.map((tool) => [tool.name, tool.risk])).toEqual([
      ['list_files', 'read'],
      ['read_file', 'read'],
      ['search', 'read'],
      ['edit_file', 'write'],
      ['run_command', 'execute'],
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.inputSchema).not.toHaveProperty('$schema');
    }
    expect(tools[3]?.inputSchema).toMatchObject({ required: ['path', 'mode'] });
    expect(tools[1]?.inputSchema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path relative to the workspace root.' },
        startLine: {
          type: 'integer',
          minimum: 1,
          description: 'First line to return (1-based). Omit to start at the top.',
        },
        endLine: {
          type: 'integer',
          minimum: 1,
          description: 'Last line to return (inclusive). Omit to read to the end.',
        },
      },
      required: ['path'],
      additionalProperties: false,
    });
  });

  it('describes calls in one line, even for input it would reject', async () => {
    const root = await makeTempDirectory();
    const [list, read, search, edit, run] = createWorkspaceTools({ root, ledger: new ReadLedger() });
    expect(list?.describe?.({ path: 'src', recursive: true })).toBe('list_files src (recursive)');
    expect(read?.describe?.({ path: 'a.ts', startLine: 3 })).toBe('read_file a.ts (lines 3-end)');
    expect(search?.describe?.({ pattern: 'TODO\nFIXME' })).toBe('search "TODO\\nFIXME" in .');
    expect(read?.describe?.({ path: 'two\nlines.txt' })).toBe('read_file "two\\nlines.txt"');
    expect(edit?.describe?.({ path: 'a.ts', mode: 'replace' })).toBe('edit_file replace a.ts');
    expect(run?.describe?.({ argv: ['npm', 'run', 'test -- --watch=false'], cwd: 'app' })).toBe(
      "run_command npm run 'test -- --watch=false' in app",
    );
    expect(run?.describe?.(42)).toBe('run_command undefined');
  });

  it('rejects caps that are not positive integers', async () => {
    const root = await makeTempDirectory();
    expect(() => createWorkspaceTools({ root, ledger: new ReadLedger(), outputCapBytes: 0 })).toThrow(
      'createWorkspaceTools: outputCapBytes must be a positive integer, got 0.',
    );
  });
});

describe('workspace tools in the agent loop', () => {
  it('lets a scripted model read a file and then edit it, every call answered', async () => {
    const root = await makeTempDirectory();
    await writeFiles(root, {
      '.git/HEAD': 'ref: main\n',
      'AGENTS.md': 'Keep answers short.\n',
      'src/greeting.ts': 'export const greeting = "hello";\n',
    });
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'read_file', input: { path: 'src/greeting.ts' } }] },
      {
        toolCalls: [
          {
            toolName: 'edit_file',
            input: { path: 'src/greeting.ts', mode: 'replace', old: '"hello"', new: '"hello, world"' },
          },
        ],
      },
      { text: 'Updated the greeting.' },
    ]);
    const result = await runAgent({
      model,
      request: 'Make the greeting friendlier.',
      instructions: () =>
        loadInstructions({ workspaceRoot: root, systemPrompt: 'You are Forge.', homeDirectory: root }),
      tools: createWorkspaceTools({ root, ledger: new ReadLedger() }),
      approvals: createApprovalGate({ profile: 'workspace-write' }),
    });

    expect(result.status).toBe('completed');
    expect(result.text).toBe('Updated the greeting.');
    expect(await readFile(path.join(root, 'src/greeting.ts'), 'utf8')).toBe(
      'export const greeting = "hello, world";\n',
    );
    expect(findUnpairedToolCalls(result.messages)).toEqual([]);
    const results = result.messages.flatMap((message) =>
      message.role === 'tool' ? message.content : [],
    ) as ToolResultPart[];
    expect(results.map((part) => [part.toolName, part.output.type])).toEqual([
      ['read_file', 'text'],
      ['edit_file', 'text'],
    ]);
    expect(results[1]?.metadata).toMatchObject({
      path: 'src/greeting.ts',
      sha256Before: results[0]?.metadata?.['sha256'],
    });
    expect(model.requests[0]?.instructions).toContain('Keep answers short.');
  });

  it('shows the model why an edit without a read and a denied command did not run', async () => {
    const root = await makeTempDirectory();
    await writeFiles(root, { 'a.txt': 'original\n' });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { toolName: 'edit_file', input: { path: 'a.txt', mode: 'rewrite', content: 'clobbered\n' } },
          { toolName: 'run_command', input: { argv: [process.execPath, '-e', '0'] } },
        ],
      },
      { text: 'I will read it first.' },
    ]);
    const result = await runAgent({
      model,
      request: 'Rewrite a.txt',
      instructions: { text: '', sources: [], hash: 'none' },
      tools: createWorkspaceTools({ root, ledger: new ReadLedger() }),
      approvals: createApprovalGate({ profile: 'workspace-write' }),
    });
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('original\n');
    const seen = JSON.stringify(model.requests[1]?.continuation);
    expect(seen).toContain('has not been read in full in this session');
    expect(seen).toContain('run_command needs confirmation under the workspace-write profile');
    expect(findUnpairedToolCalls(result.messages)).toEqual([]);
  });
});
