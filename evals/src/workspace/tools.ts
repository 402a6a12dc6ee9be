import {
  createCheckpointNoteTool,
  type CheckpointTranscriptEntry,
  type JsonObject,
  type JsonValue,
  type Tool,
} from '@forge/core';
import { createApprovalGate, createWorkspaceTools, ReadLedger, type SessionApprovalGate } from '@forge/tools';
import type { ExpandedFixture } from '../fixture/expand.js';
import { evaluateCommand } from './workspace.js';

function argvOf(input: JsonValue): string[] | undefined {
  const argv = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, JsonValue>)['argv'] : undefined;
  return Array.isArray(argv) && argv.every((item) => typeof item === 'string') ? (argv as string[]) : undefined;
}

/**
 * `run_command` for evals: the fixture's commands, answered from their declared results for the
 * workspace as it is at the time of the call, in the output format and with the host metadata
 * of the real tool. Any other program is "not found". Nothing is executed.
 */
export function createFixtureCommandTool(fixture: ExpandedFixture, root: string): Tool {
  return {
    name: 'run_command',
    description:
      'Run a program in the workspace, e.g. tests or a build: argv is the program and its arguments, run without a shell. ' +
      'Long output keeps its start and end.',
    inputSchema: {
      type: 'object',
      properties: { argv: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'Program and arguments, e.g. ["npm", "test"].' } },
      required: ['argv'],
      additionalProperties: false,
    },
    risk: 'execute',
    describe: (input) => `run_command ${(argvOf(input) ?? []).join(' ')}`,
    async execute(input) {
      const argv = argvOf(input);
      if (argv === undefined || argv.length === 0) return { output: { type: 'error-text', value: 'run_command needs "argv": a non-empty array of strings.' } };
      const command = fixture.commands.find((candidate) => candidate.argv.length === argv.length && candidate.argv.every((item, index) => item === argv[index]));
      if (command === undefined) {
        return { output: { type: 'error-text', value: `Program "${argv[0] ?? ''}" was not found: it is not on PATH and is not a file at that path. Check the name.` } };
      }
      const result = await evaluateCommand(root, command);
      const body = result.output.length === 0 ? '(no output)' : result.output.replace(/\n$/, '');
      const metadata: JsonObject = { argv, cwd: '.', exitCode: result.exitCode, signal: null, timedOut: false, cancelled: false, durationMs: 1, truncated: false };
      return { output: { type: 'text', value: `$ ${argv.join(' ')}\n${body}\n[exit code ${result.exitCode} after 1 ms]` }, metadata };
    },
  };
}

/** Tools advertised only to put pressure on the schema budget; calling one is an error. */
export function createCatalogTools(count: number, descriptionChars: number): Tool[] {
  const tools: Tool[] = [];
  for (let index = 1; index <= count; index += 1) {
    const name = `plugin_tool_${String(index).padStart(4, '0')}`;
    const description = `Plugin tool ${index}. `.padEnd(Math.max(0, descriptionChars), 'Describes one operation of an external service in detail. ');
    tools.push({
      name,
      description,
      inputSchema: {
        type: 'object',
        properties: { target: { type: 'string', description: 'What to act on.' }, options: { type: 'object', description: 'Extra settings.' } },
        required: ['target'],
        additionalProperties: false,
      },
      risk: 'read',
      async execute() {
        return { output: { type: 'error-text', value: `${name} is a catalog entry of the eval and does nothing.` } };
      },
    });
  }
  return tools;
}

/** What one process of a session holds: its tools, its read ledger and its approval gate. */
export interface SessionTools {
  readonly tools: readonly Tool[];
  readonly approvals: SessionApprovalGate;
}

/**
 * The tools of one eval session, the same in every mode: the workspace's list/read/search/edit
 * tools, the fixture's `run_command`, `checkpoint_note` over the session's transcript and any
 * catalog tools. A new call stands for a new process: a fresh read ledger and approval gate.
 */
export function createSessionTools(fixture: ExpandedFixture, root: string, transcript: () => readonly CheckpointTranscriptEntry[]): SessionTools {
  const workspace = createWorkspaceTools({ root, ledger: new ReadLedger() }).filter((tool) => tool.name !== 'run_command');
  const extra = fixture.fixture.extraTools === undefined ? [] : createCatalogTools(fixture.fixture.extraTools.count, fixture.fixture.extraTools.descriptionChars);
  return {
    tools: [...workspace, createFixtureCommandTool(fixture, root), createCheckpointNoteTool({ transcript }), ...extra],
    approvals: createApprovalGate({ profile: 'workspace-auto' }),
  };
}
