import type { InstructionSnapshot, ModelAdapter, Tool } from '@forge/core';
import {
  createApprovalGate,
  createWorkspaceTools,
  loadInstructions,
  ReadLedger,
  type ApprovalProfile,
  type ConfirmCallback,
  type SessionApprovalGate,
} from '@forge/tools';
import type { GlobalOptions } from '../commands/command.js';
import type { CliIo } from '../io.js';
import { DEFAULT_MODEL, resolveModel } from '../models/resolve-model.js';
import { SYSTEM_PROMPT } from './system-prompt.js';
import { resolveWorkspaceRoot } from './workspace.js';

/** Everything a run needs besides the request: the parts `forge run` and the REPL share. */
export interface AgentSetup {
  readonly root: string;
  readonly modelName: string;
  readonly model: ModelAdapter;
  readonly tools: readonly Tool[];
  readonly approvals: SessionApprovalGate;
  /** Loads the instructions afresh; runAgent calls it once per run and freezes the result. */
  readonly instructions: () => Promise<InstructionSnapshot>;
  readonly maxSteps: number | undefined;
}

/**
 * Resolves the global options into a ready agent: checks `--cwd`, resolves the model (usage
 * errors for bad ids and missing keys), creates the workspace tools with one read ledger for the
 * session, and the approval gate of `profile`.
 */
export async function prepareAgent(options: {
  readonly io: CliIo;
  readonly globals: GlobalOptions;
  readonly defaultProfile: ApprovalProfile;
  readonly confirm?: ConfirmCallback;
}): Promise<AgentSetup> {
  const { io, globals } = options;
  const root = await resolveWorkspaceRoot(io.cwd, globals.cwd);
  const modelName = globals.model ?? DEFAULT_MODEL;
  const model = await resolveModel(modelName, { env: io.env, extraProviders: io.modelProviders });
  const tools = createWorkspaceTools({ root, ledger: new ReadLedger() });
  const approvals = createApprovalGate({
    profile: globals.approval ?? options.defaultProfile,
    ...(options.confirm === undefined ? {} : { confirm: options.confirm }),
  });
  return {
    root,
    modelName,
    model,
    tools,
    approvals,
    instructions: () => loadInstructions({ workspaceRoot: root, systemPrompt: SYSTEM_PROMPT }),
    maxSteps: globals.maxSteps,
  };
}
