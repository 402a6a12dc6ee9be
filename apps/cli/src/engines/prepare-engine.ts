import { createApprovalGate, type ConfirmCallback } from '@forge/tools';
import type { ElicitationHandler } from '@forge/mcp';
import { prepareAgent } from '../agent/agent-setup.js';
import { createInstructionsLoader } from '@forge/agent';
import { resolveWorkspaceRoot } from '../agent/workspace.js';
import { UsageError } from '../cli-error.js';
import type { GlobalOptions } from '../commands/command.js';
import { loadCliConfig } from '../config/cli-config.js';
import type { CliIo } from '../io.js';
import { createNativeEngine } from './native-engine.js';
import type { EngineName, TurnEngine } from './turn-engine.js';

/** The engine `--engine` names (commander accepts only these); `native` when it is not given. */
export function engineName(globals: Pick<GlobalOptions, 'engine'>): EngineName {
  return globals.engine ?? 'native';
}

/** The Codex model slug in `--model codex:<slug>`; undefined to use the model Codex is configured with. */
export function codexModel(model: string | undefined): string | undefined {
  if (model === undefined) return undefined;
  const match = /^codex:(\S+)$/.exec(model);
  if (match?.[1] === undefined) {
    throw new UsageError(
      `--engine codex runs the model Codex is configured with; pass --model codex:<model> (for example codex:gpt-5.5) or leave --model out, not ${JSON.stringify(model)}`,
    );
  }
  return match[1];
}

/**
 * Resolves the global options and the configuration into the engine that runs this process's
 * turns: Forge's own loop (model, tools, MCP servers and instructions from `prepareAgent`), or the
 * Codex engine (`--engine codex`), which shares the workspace, the approval gate and the AGENTS.md
 * instructions but brings its own model and tools. Usage errors name the option to change.
 */
export async function prepareEngine(options: {
  readonly io: CliIo;
  readonly globals: GlobalOptions;
  readonly confirm?: ConfirmCallback;
  /** Asks the user what an MCP server requests (the REPL); without it such requests are declined. */
  readonly elicit?: ElicitationHandler;
  /** The engine to prepare instead of `--engine`'s (`forge compact` of a session Codex ran). */
  readonly engine?: EngineName;
}): Promise<TurnEngine> {
  const { io, globals } = options;
  if ((options.engine ?? engineName(globals)) === 'native') return createNativeEngine(await prepareAgent(options));
  if (globals.maxSteps !== undefined) {
    throw new UsageError(
      "--max-steps limits Forge's own loop; Codex decides how many model calls a turn takes, so leave it out with --engine codex",
    );
  }
  const { config } = (await loadCliConfig({ io, globals })).loaded;
  // A configured default model of another provider is for the native engine; only --model must name a Codex model.
  const model = codexModel(globals.model ?? (config.model?.startsWith('codex:') === true ? config.model : undefined));
  const root = await resolveWorkspaceRoot(io.cwd, globals.cwd);
  const profile = config.approval.profile;
  if (config.mcpServers.length > 0) {
    io.stderr.write(
      'forge: warning: the configured MCP servers are not started with --engine codex; Codex uses the MCP servers of its own configuration\n',
    );
  }
  const approvals = createApprovalGate({
    profile,
    ...(options.confirm === undefined ? {} : { confirm: options.confirm }),
  });
  // Loaded only for Codex turns: native runs never pay for the App Server client.
  const { createCodexEngine, CODEX_ENGINE_PROMPT } = await import('./codex-engine.js');
  return createCodexEngine({
    env: io.env,
    root,
    approvals,
    profile,
    model,
    context: config.context,
    instructions: createInstructionsLoader({
      root,
      warn: (message) => io.stderr.write(`forge: warning: ${message}\n`),
    })(CODEX_ENGINE_PROMPT),
  });
}
