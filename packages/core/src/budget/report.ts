import type { ModelAdapter, ModelRequest, TokenEstimate, ToolDefinition } from '../model/adapter.js';
import type { CostBreakdown } from '../pricing/price-usage.js';
import { estimateRequestCost, type RequestCostEstimate } from '../pricing/request-cost.js';
import { budgetOfEstimate, decideRequest, type ViewDecision, type ViewSummary } from '../view/request-view.js';
import type { EstimatorAccuracy } from './accuracy-tracker.js';
import type { ContextBudget } from './budget.js';
import type { ContextPolicy } from './policy.js';

/** Where the checkpoint in the active view came from, once the session has one. */
export interface CheckpointProvenance {
  readonly id?: string;
  readonly strategy?: string;
  /** Messages `[0, summarizedThrough)` of the session it replaces. */
  readonly summarizedThrough?: number;
  readonly sourceHash?: string;
  /** Set when the session has this checkpoint but the mode does not send it. */
  readonly unusedInMode?: string;
}

/** What one group of advertised tools (built-in, one MCP server) costs in schema tokens. */
export interface ToolGroupCost {
  readonly name: string;
  readonly tools: number;
  readonly tokens: number;
}

/** What `forge context` and `/context` show; the JSON form is this object as it is. */
export interface ContextReport {
  readonly model: { readonly provider: string; readonly modelId: string };
  readonly budget: ContextBudget;
  /** What the view rule decides for this request: send it, compact first (mode `compact`), or stop. */
  readonly decision: ViewDecision;
  /** Earlier messages sent verbatim (with a checkpoint, every message after it). */
  readonly retainedMessages: number;
  /** What the request carries of the stored session, when it is one. */
  readonly view?: ViewSummary;
  /** Messages in the whole session, when known; more than `retainedMessages` once a checkpoint covers the rest. */
  readonly sessionMessages?: number;
  readonly toolCount: number;
  /** Schema cost per group of tools, when the caller grouped them. */
  readonly toolGroups?: readonly ToolGroupCost[];
  readonly instructionsHash?: string;
  readonly checkpoint?: CheckpointProvenance;
  /** Estimate-versus-usage statistics of this model in this process, when any step completed. */
  readonly accuracy?: EstimatorAccuracy;
  /**
   * What the next request will cost, cold and warm, for a model with prices. When the next step
   * compacts first (`decision.kind` `compact`) and the caller previewed that compaction, it prices
   * the request as sent after it (see `compactedBeforeSending`).
   */
  readonly nextRequestCost?: RequestCostEstimate;
  /** Set when `nextRequestCost` prices the request after the compaction the next step makes first: its estimate before and after. */
  readonly compactedBeforeSending?: { readonly tokensBefore: number; readonly tokensAfter: number };
  /** What the session has cost so far, when the caller knows (the REPL). */
  readonly sessionCost?: SessionCost;
}

/** The priced cost of a session so far. */
export interface SessionCost {
  readonly cost: CostBreakdown;
  /** Input served from the prompt cache over all input, 0–1. */
  readonly cacheHitRatio?: number;
  /** Steps whose usage could not be priced (not in `cost`). */
  readonly unpricedSteps?: number;
}

export interface MeasureContextOptions {
  readonly model: ModelAdapter;
  /** The request as the next step would send it. */
  readonly request: ModelRequest;
  /** The adapter's estimate of this same `request`, when the caller has already measured it (a request view's budget). */
  readonly estimate?: TokenEstimate;
  readonly policy: ContextPolicy;
  readonly sessionMessages?: number;
  readonly instructionsHash?: string;
  readonly checkpoint?: CheckpointProvenance;
  readonly accuracy?: EstimatorAccuracy | undefined;
  readonly view?: ViewSummary;
  /** Groups of `request.tools` to cost separately (built-in tools, each MCP server). */
  readonly toolGroups?: readonly { readonly name: string; readonly tools: readonly ToolDefinition[] }[];
  readonly sessionCost?: SessionCost;
  /**
   * Tokens at the start of the request an earlier request of the conversation left in the cache.
   * Default: everything but the current request and this run's continuation — the best case.
   */
  readonly sharedPrefixTokens?: number;
}

/** Estimates a request without sending it and returns the report `forge context` renders. */
export async function measureContext(options: MeasureContextOptions): Promise<ContextReport> {
  const { model, request } = options;
  const estimate = options.estimate ?? (await model.estimateRequestTokens(request));
  const budget = budgetOfEstimate(model, request, estimate, options.policy);
  const toolGroups: ToolGroupCost[] = [];
  for (const group of options.toolGroups ?? []) {
    const alone = await model.estimateRequestTokens({ ...request, tools: group.tools });
    toolGroups.push({ name: group.name, tools: group.tools.length, tokens: alone.categories.toolSchemas });
  }
  const { prices, promptCache } = model.capabilities;
  const nextRequestCost =
    prices === undefined
      ? undefined
      : estimateRequestCost({
          prices,
          inputTokens: estimate.tokens,
          sharedPrefixTokens:
            options.sharedPrefixTokens ??
            estimate.tokens - estimate.categories.request - estimate.categories.continuation,
          reservedOutputTokens: budget.requestedOutputTokens,
          ...(promptCache === undefined ? {} : { promptCache }),
        });
  return {
    model: { provider: model.provider, modelId: model.modelId },
    budget,
    decision: decideRequest(budget),
    retainedMessages: options.view?.verbatimMessages ?? request.history.length,
    ...(options.view === undefined ? {} : { view: options.view }),
    ...(options.sessionMessages === undefined ? {} : { sessionMessages: options.sessionMessages }),
    toolCount: request.tools.length,
    ...(options.toolGroups === undefined ? {} : { toolGroups }),
    ...(options.instructionsHash === undefined ? {} : { instructionsHash: options.instructionsHash }),
    ...(options.checkpoint === undefined ? {} : { checkpoint: options.checkpoint }),
    ...(options.accuracy === undefined ? {} : { accuracy: options.accuracy }),
    ...(nextRequestCost === undefined ? {} : { nextRequestCost }),
    ...(options.sessionCost === undefined ? {} : { sessionCost: options.sessionCost }),
  };
}
