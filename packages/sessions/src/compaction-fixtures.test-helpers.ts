import {
  createInstructionSnapshot,
  sha256Hex,
  type ApprovalGate,
  type InstructionSnapshot,
  type JsonValue,
  type Tool,
} from '@forge/core';

/*
 * A workspace held in memory, with tools that report host metadata the way @forge/tools does
 * (read_file: path and sha256; edit_file: hashes before and after; run_command: argv and exit
 * code), so checkpoints built in these tests see what they would see in a real session.
 */

export const allowAll: ApprovalGate = { check: async () => ({ kind: 'allow' }) };

function field(input: JsonValue, name: string): string {
  const value =
    input !== null && typeof input === 'object' && !Array.isArray(input)
      ? (input as { readonly [key: string]: JsonValue })[name]
      : undefined;
  return typeof value === 'string' ? value : '';
}

export class MemoryWorkspace {
  readonly files = new Map<string, string>();
  /** Every tool execution, in order: `read a.ts`, `edit a.ts`, `run pnpm test`. */
  readonly executed: string[] = [];
  /** Exit code `run_command` reports for a command line; 0 when not set. */
  readonly exitCodes = new Map<string, number>();

  constructor(files: Record<string, string> = {}) {
    for (const [path, content] of Object.entries(files)) this.files.set(path, content);
  }

  /** Current hashes of `file:` artifacts, as a host re-hashing the workspace would give them. */
  readonly artifactHashes = async (uris: readonly string[]): Promise<Map<string, string | null>> =>
    new Map(
      uris.map((uri) => {
        const content = uri.startsWith('file:') ? this.files.get(uri.slice('file:'.length)) : undefined;
        return [uri, content === undefined ? null : sha256Hex(content)];
      }),
    );

  tools(): Tool[] {
    const read: Tool = {
      name: 'read_file',
      description: 'Reads a workspace file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      risk: 'read',
      execute: async (input) => {
        const path = field(input, 'path');
        this.executed.push(`read ${path}`);
        const content = this.files.get(path);
        if (content === undefined) return { output: { type: 'error-text', value: `No file ${path}.` } };
        return {
          output: { type: 'text', value: content },
          metadata: { path, sha256: sha256Hex(content), bytes: content.length, complete: true },
        };
      },
    };
    const edit: Tool = {
      name: 'edit_file',
      description: 'Replaces a file.',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
      },
      risk: 'write',
      execute: async (input) => {
        const path = field(input, 'path');
        const before = this.files.get(path);
        const after = field(input, 'content');
        this.executed.push(`edit ${path}`);
        this.files.set(path, after);
        return {
          output: { type: 'text', value: `Edited ${path}.` },
          metadata: {
            path,
            sha256Before: before === undefined ? null : sha256Hex(before),
            sha256After: sha256Hex(after),
          },
        };
      },
    };
    const run: Tool = {
      name: 'run_command',
      description: 'Runs a command.',
      inputSchema: {
        type: 'object',
        properties: { argv: { type: 'array', items: { type: 'string' } } },
        required: ['argv'],
      },
      risk: 'execute',
      execute: async (input) => {
        const argv =
          input !== null && typeof input === 'object' && !Array.isArray(input)
            ? ((input as { readonly argv?: JsonValue }).argv as string[])
            : [];
        const line = argv.join(' ');
        this.executed.push(`run ${line}`);
        const exitCode = this.exitCodes.get(line) ?? 0;
        const output = exitCode === 0 ? 'Tests: 5 passed' : 'FAIL test/auth.test.ts\nTests: 1 failed, 4 passed';
        return {
          output: { type: 'text', value: output },
          metadata: { argv, exitCode, signal: null, timedOut: false, durationMs: 10, truncated: false },
        };
      },
    };
    return [read, edit, run];
  }
}

/** Instructions as a loader would produce them from an AGENTS.md text. */
export function instructionsFrom(agentsMd: string): InstructionSnapshot {
  return createInstructionSnapshot('You are Forge.', [{ origin: 'AGENTS.md', content: agentsMd }]);
}

/** A long plain answer, so turns fill a tail budget quickly. */
export function filler(turn: number, chars = 600): string {
  return `Turn ${turn}: ${'we looked at the parser and the lexer in detail. '.repeat(Math.ceil(chars / 50))}`.slice(
    0,
    chars,
  );
}
