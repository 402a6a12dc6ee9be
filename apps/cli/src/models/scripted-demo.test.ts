import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runAgent, createInstructionSnapshot, type ModelRequest } from '@forge/core';
import { createApprovalGate, createWorkspaceTools, ReadLedger } from '@forge/tools';
import { describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../test-support/cli-harness.js';
import { createDemoModel, decideDemoStep, pickFileToRead } from '@forge/agent';

async function runDemo(root: string, request = 'Summarise the workspace') {
  return runAgent({
    model: createDemoModel(),
    request,
    instructions: createInstructionSnapshot('test'),
    tools: createWorkspaceTools({ root, ledger: new ReadLedger() }),
    approvals: createApprovalGate({ profile: 'read-only' }),
  });
}

describe('pickFileToRead', () => {
  it('prefers a top-level README in any case and extension', () => {
    expect(pickFileToRead(['a.ts', 'docs/README.md', 'readme.rst'])).toBe('readme.rst');
  });

  it('falls back to the first top-level file, then to any file', () => {
    expect(pickFileToRead(['src/a.ts', 'b.json'])).toBe('b.json');
    expect(pickFileToRead(['src/a.ts'])).toBe('src/a.ts');
    expect(pickFileToRead([])).toBeUndefined();
  });
});

describe('scripted:demo', () => {
  it('lists, reads and quotes what it read, and behaves the same on every run', async () => {
    const workspace = await temporaryDirectory();
    try {
      await mkdir(path.join(workspace.path, 'lib'));
      await writeFile(path.join(workspace.path, 'lib', 'one.js'), '1\n');
      await writeFile(path.join(workspace.path, 'notes.txt'), '## Notes heading\n\nFirst paragraph\ncontinues here.\n');
      const first = await runDemo(workspace.path);
      const second = await runDemo(workspace.path);
      expect(first.status).toBe('completed');
      expect(first.steps).toBe(3);
      expect(first.text).toContain('list_files found 2 files in 1 directory.');
      expect(first.text).toContain('notes.txt has 4 lines; its first heading is "## Notes heading".');
      expect(first.text).toContain('It begins: "First paragraph continues here."');
      expect(second.text).toBe(first.text);
    } finally {
      await workspace.remove();
    }
  });

  it('answers without reading in an empty workspace', async () => {
    const workspace = await temporaryDirectory();
    try {
      const result = await runDemo(workspace.path);
      expect(result.steps).toBe(2);
      expect(result.text).toContain('list_files found 0 files in 0 directories.');
    } finally {
      await workspace.remove();
    }
  });

  it('says so when the run offers no tools', () => {
    const request: ModelRequest = {
      instructions: '',
      history: [],
      currentRequest: { role: 'user', content: 'hi' },
      continuation: [],
      tools: [],
    };
    expect(decideDemoStep(request).text).toBe('I cannot look at the workspace: this run offers no list_files tool.');
  });
});

describe('scripted:demo tool call ids', () => {
  it('never reuses a tool call id, so resumed sessions hold distinct ids', () => {
    const request: ModelRequest = {
      instructions: '',
      history: [],
      currentRequest: { role: 'user', content: 'go' },
      continuation: [],
      tools: [{ name: 'list_files', description: '', inputSchema: {} }],
    };
    const first = decideDemoStep(request).toolCalls?.[0]?.toolCallId;
    const second = decideDemoStep(request).toolCalls?.[0]?.toolCallId;
    expect(first).toMatch(/^call_/);
    expect(second).not.toBe(first);
  });
});
