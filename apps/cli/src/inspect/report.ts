import type { CostBreakdown } from '@forge/core/pricing';

/**
 * The data `forge inspect` shows. The terminal table, `--json` and the HTML page are all
 * renderings of one `InspectReport`; `--json` prints it as it is.
 */

/** Version of the `--json` document; raised when a field changes meaning or goes away. */
export const INSPECT_REPORT_VERSION = 1 as const;

export interface InspectReport {
  readonly inspectReportVersion: typeof INSPECT_REPORT_VERSION;
  readonly target: InspectTarget;
  /** One entry per run found, in the order their traces were read. */
  readonly runs: readonly RunReport[];
  /** Usage and cost over every run, when the report covers more than one run or a session. */
  readonly totals?: UsageTotals;
  /** What was wrong with the traces read; the report covers every line that could be read. */
  readonly problems: readonly TraceProblem[];
  /** Problems beyond those listed (a badly damaged file can have very many). */
  readonly problemsNotListed: number;
}

/** What was asked for and which files that meant. */
export interface InspectTarget {
  readonly kind: 'file' | 'run' | 'session' | 'last';
  /** The argument as given (`--last` for `--last`). */
  readonly argument: string;
  readonly sessionId?: string;
  readonly files: readonly string[];
}

export interface TraceProblem {
  readonly kind: 'torn_tail' | 'malformed_line' | 'missing_trace' | 'newer_schema' | 'unreadable_trace';
  readonly file: string;
  /** 1-based line, when the problem is one line. */
  readonly line?: number;
  readonly message: string;
}

export type RunOutcome =
  | 'completed'
  | 'step_limit'
  | 'cancelled'
  | 'limit_reached'
  | 'failed'
  | 'unfinished'
  | (string & {});

export interface TokenUsage {
  readonly inputTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
  readonly outputTokens?: number;
  readonly reasoningTokens?: number;
}

/** Tokens and their cost over some steps or runs. */
export interface UsageTotals {
  readonly usage: TokenUsage;
  /** Input served from the prompt cache over all input reported, 0–1. */
  readonly cacheHitRatio?: number;
  /** The priced part: every step whose trace carries a cost. Absent when nothing was priced. */
  readonly cost?: CostBreakdown;
  /** Steps that were not priced (a model without prices, usage not reported, or a trace from before prices). */
  readonly unpricedSteps: number;
}

/** The prices a run was priced with, as its trace recorded them. */
export interface RunPrices {
  readonly inputPerMillion: number;
  readonly cachedInputPerMillion?: number | undefined;
  readonly cacheWritePerMillion?: number | undefined;
  readonly outputPerMillion: number;
  readonly source?: string | undefined;
  readonly asOf?: string | undefined;
  readonly reference?: string | undefined;
  readonly note?: string | undefined;
}

export interface RunReport {
  /** `run`: a turn of the agent; `compaction`: a compaction made between runs with `forge compact` or `/compact`. */
  readonly kind: 'run' | 'compaction';
  readonly runId: string;
  readonly sessionId?: string;
  readonly file: string;
  /** The engine that drove the model, as `--engine` names it: `native` unless the trace names another (such as `codex`). */
  readonly engine: string;
  readonly model?: { readonly provider: string; readonly modelId: string };
  /** The run's end status, or `unfinished` when the trace has no end (still running, or the process died). */
  readonly status: RunOutcome;
  readonly startedAt?: string;
  readonly endedAt?: string;
  readonly durationMs?: number;
  readonly steps: number;
  readonly maxSteps?: number;
  readonly instructionsHash?: string;
  readonly advertisedTools: readonly string[];
  readonly usage: TokenUsage;
  /** Input served from the prompt cache over all input reported, 0–1. */
  readonly cacheHitRatio?: number;
  /** Absent when the run's model had no prices (or the trace predates prices): its usage is in tokens only. */
  readonly prices?: RunPrices;
  /** The run's cost: from its end event, else the sum of its priced steps. */
  readonly cost?: CostBreakdown;
  /** Steps of the run that have no cost. */
  readonly unpricedSteps: number;
  readonly error?: { readonly code: string; readonly message: string };
  readonly window?: ContextWindow;
  readonly budget: readonly StepBudget[];
  /** Mean of the absolute estimate errors of steps that have both an estimate and provider input. */
  readonly meanAbsoluteErrorPercent?: number;
  /** Budget warnings (`context.warning`) during the run. */
  readonly warnings: number;
  /** Set when the run's estimator was found to undercount too often to be trusted for automatic compaction. */
  readonly estimatorFlagged?: string;
  /** Compactions in order, up to a limit (1000). */
  readonly compactions: readonly CompactionRow[];
  readonly compactionsNotListed: number;
  /** Stops in order, up to a limit (1000). */
  readonly stops: readonly StopRow[];
  readonly stopsNotListed: number;
  readonly toolCalls: ToolCallSummary;
  /** Events whose type this Forge does not know, counted by type. */
  readonly unknownEvents: readonly { readonly type: string; readonly count: number }[];
  readonly events: number;
}

export interface ContextWindow {
  readonly tokens: number;
  /** Where the window came from: `table`, `config` or `fallback` (or `codex` when the Codex engine reported it). */
  readonly source?: string;
  readonly estimationMethod?: string;
  /** Input a request may use: the window less the output reserve (from the last budget event). */
  readonly availableInputTokens?: number;
  /** The context mode the run used: `off`, `warn`, `shadow` or `compact`. */
  readonly mode?: string;
}

/** One model step: the preflight estimate beside what the provider reported. */
export interface StepBudget {
  readonly step: number;
  /** Estimated input tokens of the request sent in this step. */
  readonly estimatedTokens?: number | undefined;
  /** The estimate by budget category (instructions, checkpoint, history, request, continuation, toolSchemas, overhead). */
  readonly categories?: Readonly<Record<string, number>> | undefined;
  readonly confidence?: string | undefined;
  readonly reportedInputTokens?: number | undefined;
  /** Part of the reported input served from the prompt cache. */
  readonly cachedInputTokens?: number | undefined;
  /** Part of the reported input written to the prompt cache. */
  readonly cacheWriteTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
  /** What the step cost, when its model was priced. */
  readonly cost?: CostBreakdown | undefined;
  /** (estimate − reported) / reported, in percent; positive means the estimate was high. */
  readonly errorPercent?: number | undefined;
  readonly finishReason?: string | undefined;
  readonly toolCalls?: number | undefined;
  readonly warned: boolean;
  readonly failed?: { readonly code: string; readonly message: string } | undefined;
  /**
   * `wrapper` when the estimate counts only what Forge sends to an engine that adds its own
   * prompt and tools (Codex); no error is computed for such a step.
   */
  readonly estimateCovers?: 'wrapper' | undefined;
}

export interface CompactionRow {
  /** The step whose request the compaction came before (0 when no step had started). */
  readonly beforeStep: number;
  /** `skipped`: a manual compaction that changed nothing (the reason says why). */
  readonly outcome: 'completed' | 'failed' | 'started' | 'skipped';
  readonly strategy?: string;
  readonly reclaimedTokens?: number;
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
  /** Tokens of history and the run's messages the request sent verbatim after it (projected outputs not counted). */
  readonly keptVerbatimTokens?: number;
  readonly checkpointHash?: string;
  readonly checkpointId?: string;
  /** The files the new forge-state checkpoint holds in hand (its working set), most recent first. */
  readonly filesInHand?: readonly string[];
  readonly reason?: string;
  /** What the coverage check did before install (`context.checkpoint.coverage`): "repaired 2 missing: constraint #0, request #3". */
  readonly coverage?: string;
}

/** Why a run stopped short, or a guard that fired: context limits, step limits, failures, cancellation. */
export interface StopRow {
  readonly step?: number;
  readonly kind: 'context_limit' | 'guard' | 'step_limit' | 'cancelled' | 'failed' | 'step_failed';
  readonly reason: string;
}

export interface ToolCallRow {
  readonly step: number;
  readonly toolCallId: string;
  readonly toolName: string;
  /** `ok`, `error`, `denied`, `cancelled`, or `unfinished` for a call the trace never saw end. */
  readonly outcome: string;
  readonly durationMs?: number;
}

export interface ToolTotals {
  readonly toolName: string;
  readonly calls: number;
  /** Calls by outcome, e.g. `{ ok: 3, error: 1 }`. */
  readonly outcomes: Readonly<Record<string, number>>;
  readonly totalDurationMs: number;
  readonly maxDurationMs: number;
}

export interface ToolCallSummary {
  readonly total: number;
  readonly byTool: readonly ToolTotals[];
  /** The slowest calls, slowest first. */
  readonly slowest: readonly ToolCallRow[];
  /** Calls that did not end `ok`, in order, up to a limit. */
  readonly notOk: readonly ToolCallRow[];
  readonly notOkTotal: number;
}
