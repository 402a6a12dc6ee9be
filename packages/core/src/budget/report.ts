import type { ModelAdapter, ModelRequest } from '../model/adapter.js';
import type { EstimatorAccuracy } from './accuracy-tracker.js';
import { computeContextBudget, type ContextBudget } from './budget.js';
import type { ContextCapabilities } from './capabilities.js';
import type { ContextPolicy } from './policy.js';

/** Where the checkpoint in the active view came from, once the session has one. */
export interface CheckpointProvenance {
  readonly id?: string;
  readonly strategy?: string;
  /** Messages `[0, summarizedThrough)` of the session it replaces. */
  readonly summarizedThrough?: number;
  readonly sourceHash?: string;
}

/** What `forge context` and `/context` show; the JSON form is this object as it is. */
export interface ContextReport {
  readonly model: { readonly provider: string; readonly modelId: string };
  readonly budget: ContextBudget;
  /** Earlier messages sent verbatim (the retained turns of the active view). */
  readonly retainedMessages: number;
  /** Messages in the whole session, when known; more than `retainedMessages` once a checkpoint covers the rest. */
  readonly sessionMessages?: number;
  readonly toolCount: number;
  readonly instructionsHash?: string;
  readonly checkpoint?: CheckpointProvenance;
  /** Estimate-versus-usage statistics of this model in this process, when any step completed. */
  readonly accuracy?: EstimatorAccuracy;
}

export interface MeasureContextOptions {
  readonly model: ModelAdapter;
  /** The request as the next step would send it. */
  readonly request: ModelRequest;
  readonly policy: ContextPolicy;
  readonly sessionMessages?: number;
  readonly instructionsHash?: string;
  readonly checkpoint?: CheckpointProvenance;
  readonly accuracy?: EstimatorAccuracy;
}

/** Estimates a request without sending it and returns the report `forge context` renders. */
export async function measureContext(options: MeasureContextOptions): Promise<ContextReport> {
  const { model, request } = options;
  const estimate = await model.estimateRequestTokens(request);
  const budget = computeContextBudget({
    capabilities: model.capabilities as ContextCapabilities,
    estimate,
    policy: options.policy,
    ...(request.maxOutputTokens === undefined ? {} : { requestedOutputTokens: request.maxOutputTokens }),
  });
  return {
    model: { provider: model.provider, modelId: model.modelId },
    budget,
    retainedMessages: request.history.length,
    ...(options.sessionMessages === undefined ? {} : { sessionMessages: options.sessionMessages }),
    toolCount: request.tools.length,
    ...(options.instructionsHash === undefined ? {} : { instructionsHash: options.instructionsHash }),
    ...(options.checkpoint === undefined ? {} : { checkpoint: options.checkpoint }),
    ...(options.accuracy === undefined ? {} : { accuracy: options.accuracy }),
  };
}
