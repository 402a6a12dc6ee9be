export { createEstimatorAccuracyTracker, type EstimatorAccuracy, type EstimatorAccuracyTracker } from './accuracy-tracker.js';
export {
  MIN_SAMPLES_FOR_OFFER,
  overcountCorrection,
  scaleEstimate,
  summarizeCalibration,
  undercountCorrection,
  type CalibrationSample,
  type CalibrationSummary,
} from './calibration.js';
export type { ChatLayout, ChatLayoutContext, LayoutPiece } from './chat-layout.js';
export { computeContextBudget, mandatoryTokensOf, type BudgetDecision, type BudgetInput, type ContextBudget } from './budget.js';
export {
  resolveModelCapabilities,
  withoutDateSuffix,
  type CapabilityTableEntry,
  type ConfiguredLimits,
  type ContextCapabilities,
  type ResolveCapabilitiesOptions,
} from './capabilities.js';
export { countTextConservatively, createConservativeEstimator } from './conservative-estimator.js';
export type {
  ContextBudgetedEvent,
  ContextEstimatorFlaggedEvent,
  ContextEvent,
  ContextEventModel,
  ContextLimitReachedEvent,
  ContextLimitReason,
  ContextUsageReconciledEvent,
  ContextWarningEvent,
  ContextWarningReason,
} from './context-events.js';
export { countMessagesWithEstimate } from './message-counts.js';
export { formatMessageRange, formatTokens } from './messages.js';
export { preflightRequest, reconcileStep, type PreflightOptions, type PreflightResult, type PreflightStop, type ReconcileStepOptions } from './preflight.js';
export { CONTEXT_MODES, DEFAULT_CONTEXT_POLICY, resolveContextPolicy, type ContextMode, type ContextPolicy } from './policy.js';
export { reconcileUsage, type UsageReconciliation } from './reconcile.js';
export { renderContextReport, type RenderContextOptions } from './render.js';
export { measureContext, type CheckpointProvenance, type ContextReport, type MeasureContextOptions, type SessionCost, type ToolGroupCost } from './report.js';
export {
  createRequestEstimator,
  DEFAULT_FRAMING_OVERHEAD,
  type EstimatorCacheStats,
  type FramingOverhead,
  type RequestEstimator,
  type RequestEstimatorOptions,
} from './request-estimator.js';
