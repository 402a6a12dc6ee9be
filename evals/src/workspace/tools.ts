import type { Tool } from '@forge/core';
import { assembleAgent, type Agent } from '@forge/agent';
import { HeadTailBuffer, type ProcessOutcome, type RunProcessOptions } from '@forge/tools';
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

/**
 * The agent of one eval session, assembled as the CLI assembles its own: the product's workspace
 * tools over the fixture's workspace, with `run_command` answering from the fixture, then any
 * catalog tools, under the `workspace-auto` profile. A new call stands for a new process: a fresh
 * read ledger and approval gate.
 */
export function assembleEvalAgent(fixture: ExpandedFixture, root: string): Promise<Agent> {
  const { extraTools, model } = fixture.fixture;
  return assembleAgent({
    root,
    workspaceTools: { runProcess: fixtureProcessRunner(fixture, root) },
    approvals: { profile: 'workspace-auto' },
    extraTools: () =>
      extraTools === undefined ? [] : createCatalogTools(extraTools.count, extraTools.descriptionChars),
    maxOutputTokens: model.maxOutputTokens,
    // The user's own AGENTS.md must not leak into a fixture's instructions.
    homeDirectory: root,
  });
}
