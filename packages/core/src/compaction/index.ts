/* `@forge/core/compaction`: turning a transcript into a checkpoint, and the pieces a session wires into `runAgent`. */
export { buildForgeState, checkpointIdOf, type BuiltCheckpoint } from './built-checkpoint.js';
export {
  compactTranscript,
  type CompactTranscriptOptions,
  type CompactTranscriptResult,
  type CurrentCheckpointInfo,
} from './compact-transcript.js';
export type { ContextManager, FitRequest } from './context-manager.js';
export type { CompactionGuardLimits } from './guard.js';
export { CompactionRequestChannel } from './request-compaction-tool.js';
export {
  createSessionModelTools,
  sessionModelToolStandIns,
  type SessionModelToolOffer,
} from './session-model-tools.js';
export type { CompactionStrategySetting } from './strategies.js';
export { markStaleReads, readArtifacts } from './stale-reads.js';
export { chooseProjection, OutputSizeCache, protectedToolOutputTokens } from './projection-plan.js';
export { applyToolOutputProjection, projectionCandidates } from './tool-output-projection.js';
