import type {
  ApprovalGate,
  ContextPolicy,
  EventEnvelope,
  InstructionSnapshot,
  ModelAdapter,
  RunAgentOptions,
  Tool,
} from '@forge/core';
import type { SessionCompactionOptions, SessionTurnOptions } from '@forge/sessions';
import {
  createApprovalGate,
  createWorkspaceTools,
  ReadLedger,
  workspaceArtifactHashes,
  type ApprovalGateOptions,
  type SessionApprovalGate,
  type WorkspaceToolsOptions,
} from '@forge/tools';
import {
  agentSurface,
  sessionSurface,
  type AgentSurface,
  type ContextToolSettings,
  type SessionSize,
} from './agent-surface.js';
import { createInstructionsLoader } from './instructions-loader.js';

/** What one process of a session offers the model and who approves it: see {@link assembleAgent}. */
export interface AssembleAgentOptions {
  readonly root: string;
  /** How the workspace tools run commands: the configured sandbox, or a stand-in process runner (evals). */
  readonly workspaceTools?: Pick<WorkspaceToolsOptions, 'sandbox' | 'runProcess'>;
  /** The approval profile, the sandbox status it reports and who answers its questions. */
  readonly approvals: ApprovalGateOptions;
  /**
   * Tools after the workspace tools (MCP servers', an eval's catalogue); given the names they may
   * not take. A function instead of a list is asked for the tools at every surface, so a set that
   * changes (an MCP server's tools after `tools/list_changed`) is offered from the next run on.
   */
  readonly extraTools?: (reservedNames: readonly string[]) => Promise<ExtraTools> | ExtraTools;
  /** Which context tools are allowed (`context.checkpointNote`, `context.requestCompaction`). */
  readonly contextTools?: ContextToolSettings;
  /** Caps each request's output; the context-tool decision reserves it. */
  readonly maxOutputTokens?: number;
  /** Where the user's own AGENTS.md is looked for; default the real home directory. */
  readonly homeDirectory?: string;
  /** Told once per process about each instruction file refused. */
  readonly warn?: (message: string) => void;
}

/** The extra tools of an agent: a fixed list, or the list as it is now. */
export type ExtraTools = readonly Tool[] | (() => readonly Tool[]);

/** One turn of a stored session, as the CLI and the evals both run it: see {@link Agent.storedTurn}. */
export interface StoredTurnInput {
  readonly request: RunAgentOptions['request'];
  readonly model: ModelAdapter;
  readonly context: ContextPolicy;
  /** The session as stored now; its size decides whether the context tools are offered. */
  readonly session: SessionSize;
  /** How the session compacts (strategy, caps, guard); the surface adds its context tools. */
  readonly compaction?: SessionCompactionOptions;
  /** The gate of this turn, when not the agent's own. */
  readonly approvals?: ApprovalGate;
  readonly maxSteps?: number;
  readonly signal?: AbortSignal;
  readonly now?: () => number;
  readonly onEvent: (envelope: EventEnvelope) => void;
}

/** The agent of one process: its tools, approvals and instructions, and what each run offers. */
export interface Agent {
  readonly root: string;
  /** The workspace tools, then the extra tools as they are now (each run's surface reads them afresh). */
  readonly tools: readonly Tool[];
  /** What the built-in tools have seen of each file this process: `edit_file` needs it, and a sent checkpoint's working set adds to it. */
  readonly ledger: ReadLedger;
  readonly approvals: SessionApprovalGate;
  /**
   * What a run on `model` under `policy` offers: the tools, the context tools its session adds once
   * it is big enough, and the system prompt describing them. Without a session, no context tools.
   */
  surface(session: SessionSize | undefined, model: ModelAdapter, policy: ContextPolicy): Promise<AgentSurface>;
  /** Loads the instructions of a run offering `surface` afresh; runAgent calls it once per run and freezes the result. */
  instructions(surface: AgentSurface): () => Promise<InstructionSnapshot>;
  /** The options of `SessionHandle.runTurn` for one turn: the one place both the CLI and the evals build them. */
  storedTurn(input: StoredTurnInput): Promise<SessionTurnOptions>;
}

/**
 * Assembles the agent Forge ships: the workspace tools over one read ledger, the extra tools, the
 * approval gate, and the instructions loader (one per system prompt, so a refused instruction file
 * is reported once per process, not once per turn). `forge run`, the REPL and `forge eval` all run
 * their turns through it, so the agent the evals measure is the agent the CLI ships.
 */
export async function assembleAgent(options: AssembleAgentOptions): Promise<Agent> {
  const { root } = options;
  const ledger = new ReadLedger();
  const builtIn = createWorkspaceTools({ root, ledger, ...options.workspaceTools });
  const extra = (await options.extraTools?.(builtIn.map((tool) => tool.name))) ?? [];
  const currentTools = (): readonly Tool[] => [...builtIn, ...(typeof extra === 'function' ? extra() : extra)];
  const approvals = createApprovalGate(options.approvals);
  const loaderOf = createInstructionsLoader({
    root,
    ...(options.homeDirectory === undefined ? {} : { homeDirectory: options.homeDirectory }),
    warn: options.warn ?? (() => {}),
  });
  const surface = (session: SessionSize | undefined, model: ModelAdapter, policy: ContextPolicy) =>
    session === undefined
      ? Promise.resolve(
          agentSurface({
            mode: policy.mode,
            tools: currentTools(),
            settings: { checkpointNote: false, requestCompaction: false },
          }),
        )
      : sessionSurface({
          tools: currentTools(),
          ...(options.contextTools === undefined ? {} : { settings: options.contextTools }),
          policy,
          model,
          ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
          instructions: (systemPrompt) => loaderOf(systemPrompt)(),
          session,
        });
  const instructions = (offered: AgentSurface) => loaderOf(offered.systemPrompt);
  return {
    root,
    get tools() {
      return currentTools();
    },
    ledger,
    approvals,
    surface,
    instructions,
    async storedTurn(input) {
      const offered = await surface(input.session, input.model, input.context);
      return {
        request: input.request,
        model: input.model,
        tools: offered.tools,
        approvals: input.approvals ?? approvals,
        context: input.context,
        instructions: instructions(offered),
        ...(input.maxSteps === undefined ? {} : { maxSteps: input.maxSteps }),
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
        ...(input.signal === undefined ? {} : { signal: input.signal }),
        ...(input.now === undefined ? {} : { now: input.now }),
        onEvent: input.onEvent,
        artifactHashes: workspaceArtifactHashes(root, { ledger }),
        compaction: { ...input.compaction, ...offered.compaction },
      };
    },
  };
}
