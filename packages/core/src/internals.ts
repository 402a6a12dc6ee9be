/*
 * `@forge/core/internals`: core's internals that tests outside core drive directly (the reliability
 * suites' fuzzers and hostile histories, other packages' fixtures, the benchmarks). It is a
 * source-only entry point: only the `@forge/source` condition resolves it, so it never ships in
 * `dist/`, and `scripts/core-exports.test.ts` fails if product code imports it.
 */
export { type ContextBudgetedEvent } from './budget/context-events.js';
export { createEstimatorAccuracyTracker } from './budget/accuracy-tracker.js';
export { preflightRequest } from './budget/preflight.js';
export { reconcileUsage } from './budget/reconcile.js';
export { findApprovalClaim, findPolicyText } from './checkpoint/authority-text.js';
export { createCheckpointNoteTool } from './checkpoint/checkpoint-note-tool.js';
export { CHECKPOINT_NOTE_TOOL } from './checkpoint/host-metadata.js';
export { reduceMemoryFromTranscript } from './checkpoint/memory-replay.js';
export { validateMemoryUpdate, type MemoryValidationContext } from './checkpoint/memory-validator.js';
export { checkpointStateSchema, type CheckpointMemory, type StructuredSummary } from './checkpoint/schema.js';
export { workingSetLimitsFor } from './checkpoint/working-set.js';
export { withStructuredSummary } from './compaction/built-checkpoint.js';
export { compactorRequest, parseCompactorReply } from './compaction/compactor-model.js';
export { projectToolOutput } from './compaction/tool-output-projection.js';
export { selectTail } from './view/select-tail.js';
export { checkpointMatchesTranscript } from './checkpoint/build.js';
export { eventEnvelopeSchema, forgeEventSchema } from './events/event-schemas.js';
