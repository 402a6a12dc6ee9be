import type { Tool } from '@forge/core';
import {
  createApprovalGate,
  createWorkspaceTools,
  HeadTailBuffer,
  ReadLedger,
  type ProcessOutcome,
  type RunProcessOptions,
  type SessionApprovalGate,
} from '@forge/tools';
import type { ExpandedFixture } from '../fixture/expand.js';
import { evaluateCommand } from './workspace.js';

/**
 * How `run_command` starts a program in evals: the fixture's command with the same argv answers
 * from its declared results for the workspace as it is at the time of the call, cut to the tool's
 * output cap like real output; any other program is "not found". Nothing is executed, and the
 * tool around it (its definition, output format and metadata) is the product's own.
 */
export function fixtureProcessRunner(
  fixture: ExpandedFixture,
  root: string,
): (options: RunProcessOptions) => Promise<ProcessOutcome> {
  return async (options) => {
    const { argv } = options;
    const command = fixture.commands.find(
      (candidate) =>
        candidate.argv.length === argv.length && candidate.argv.every((item, index) => item === argv[index]),
    );
    if (command === undefined) throw Object.assign(new Error(`spawn ${argv[0]} ENOENT`), { code: 'ENOENT' });
    const result = await evaluateCommand(root, command);
    const output = new HeadTailBuffer(options.outputCapBytes);
    output.append(Buffer.from(result.output, 'utf8'));
    return {
      exitCode: result.exitCode,
      signal: null,
      timedOut: false,
      cancelled: false,
      durationMs: 1,
      output: output.text(),
      truncated: output.truncated,
      strays: { tracked: true, stopped: 0, stillRunning: [] },
      pipesHeldOpen: false,
    };
  };
}

/** Tools advertised only to put pressure on the schema budget; calling one is an error. */
export function createCatalogTools(count: number, descriptionChars: number): Tool[] {
  const tools: Tool[] = [];
  for (let index = 1; index <= count; index += 1) {
    const name = `plugin_tool_${String(index).padStart(4, '0')}`;
    const description = `Plugin tool ${index}. `.padEnd(
      Math.max(0, descriptionChars),
      'Describes one operation of an external service in detail. ',
    );
    tools.push({
      name,
      description,
      inputSchema: {
        type: 'object',
        properties: {
          target: { type: 'string', description: 'What to act on.' },
          options: { type: 'object', description: 'Extra settings.' },
        },
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
  /** The workspace tools (with the fixture's `run_command`) and any catalog tools, in that order. */
  readonly tools: readonly Tool[];
  readonly approvals: SessionApprovalGate;
  /** What `edit_file` accepts as read: the reads of this process and the working set its requests showed. */
  readonly ledger: ReadLedger;
}

/**
 * The tools of one eval session: the product's workspace tools over the fixture's workspace, with
 * `run_command` answering from the fixture, then any catalog tools. A new call stands for a new
 * process: a fresh read ledger and approval gate.
 */
export function createSessionTools(fixture: ExpandedFixture, root: string): SessionTools {
  const ledger = new ReadLedger();
  const workspace = createWorkspaceTools({ root, ledger, runProcess: fixtureProcessRunner(fixture, root) });
  const extra =
    fixture.fixture.extraTools === undefined
      ? []
      : createCatalogTools(fixture.fixture.extraTools.count, fixture.fixture.extraTools.descriptionChars);
  return { tools: [...workspace, ...extra], approvals: createApprovalGate({ profile: 'workspace-auto' }), ledger };
}
