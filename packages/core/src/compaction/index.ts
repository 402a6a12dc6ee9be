export { buildForgeState, checkpointIdOf, finishCheckpoint, withNativeState, withStructuredSummary, withViewTokens, type BuiltCheckpoint } from './built-checkpoint.js';
export {
  compactTranscript,
  type CompactTranscriptOptions,
  type CompactTranscriptResult,
  type CurrentCheckpointInfo,
} from './compact-transcript.js';
export {
  COMPACTOR_CHARS_PER_MESSAGE,
  COMPACTOR_INSTRUCTIONS,
  compactorRequest,
  parseCompactorReply,
  runCompactor,
  structuredSummaryInconsistencies,
  structuredSummaryJsonSchema,
  type CompactorFailureReason,
  type CompactorOutcome,
} from './compactor-model.js';
export type { ContextManager, ContextManagerStopReason, FitReason, FitRequest, FitResult } from './context-manager.js';
export { cacheRewriteTokens, COST_GATE_HORIZON_TURNS, evaluateCostGate, type CostGateDecision, type CostGateInput } from './cost-gate.js';
export { evaluateCompactionGate, pricedGateNumbers, QUALITY_RISK_TOKENS, type CompactionGateInput, type PricedGateNumbers } from './priced-cost-gate.js';
export type {
  CompactionEvent,
  CompactionStrategyName,
  CompactionTrigger,
  CompactorDisclosure,
  ContextCompactionCompletedEvent,
  ContextCompactionFailedEvent,
  ContextCompactionSkippedEvent,
  ContextCompactionStartedEvent,
  TranscriptSpan,
} from './events.js';
export {
  CompactionGuard,
  DEFAULT_COMPACTION_GUARD_LIMITS,
  type CompactionGuardLimits,
  type GuardStopReason,
  type GuardVerdict,
} from './guard.js';
export type { RunViewOrigin } from './run-context.js';
export { planCompaction, tailBudgets, TAIL_FLOOR_TOKENS, type CompactionPlan, type CompactionPlanInput } from './planner.js';
export {
  CompactionRequestChannel,
  createRequestCompactionTool,
  REQUEST_COMPACTION_TOOL,
  type ContextUsageSnapshot,
} from './request-compaction-tool.js';
export {
  createSessionModelTools,
  NO_SESSION_MODEL_TOOLS,
  sessionModelToolStandIns,
  type SessionModelToolBindings,
  type SessionModelToolOffer,
} from './session-model-tools.js';
export {
  compactorCost,
  compactorOutputCap,
  DEFAULT_COMPACTOR_TIMEOUT_MS,
  type CompactionStrategySetting,
  type CompactorCost,
} from './strategies.js';
export { markStaleReads, readArtifacts } from './stale-reads.js';
export { applyToolOutputProjection, projectableToolCalls, projectToolOutput, type ToolOutputProjectionOptions } from './tool-output-projection.js';
