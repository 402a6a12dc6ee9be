/* `@forge/core/checkpoint`: the checkpoint model — schema, memory, digest, build, validation and the rendered view. */
export { CHECKPOINT_CAPS, type CheckpointCaps } from './caps.js';
export {
  CHECKPOINT_SAFETY_LABELS,
  checkpointStateSchema,
  emptyCheckpointMemory,
  type Artifact,
  type CheckpointMemory,
  type CheckpointState,
  type ConstraintRecord,
  type ContextCheckpoint,
  type DigestEntry,
  type ForgeStateCheckpoint,
  type StructuredSummary,
} from './schema.js';
export {
  CHECKPOINT_NOTE_TOOL,
  commandUri,
  fileUri,
  withRunIds,
  type CheckpointTranscriptEntry,
} from './host-metadata.js';
export { findApprovalClaim, findPolicyText, truncateWithoutClaims } from './authority-text.js';
export { truncateText } from './text.js';
export { buildDigest, digestLayout } from './digest.js';
export { earlierRequests, MAX_EARLIER_REQUESTS, userConstraints } from './user-requests.js';
export { validateMemoryUpdate, type MemoryValidationContext } from './memory-validator.js';
export { capMemory } from './memory-apply.js';
export { reduceMemoryFromTranscript } from './memory-replay.js';
export { createCheckpointNoteTool } from './checkpoint-note-tool.js';
export { observeArtifactHashes, type ArtifactHashes } from './staleness.js';
export {
  buildForgeStateCheckpoint,
  checkpointHash,
  checkpointMatchesTranscript,
  sourceMatchesTranscript,
} from './build.js';
export { renderCheckpointView } from './view.js';
export { validateCheckpoint } from './validate.js';
export {
  DEFAULT_WORKING_SET_BUDGET,
  readFilesInHand,
  workingSetLimitsFor,
  workingSetShown,
  type WorkingSetBudget,
  type WorkingSetContents,
  type WorkingSetFileContent,
  type WorkingSetReader,
  type WorkingSetRenderInput,
  type WorkingSetShownFile,
} from './working-set.js';
export { checkCoverage, type CoverageItem } from './coverage.js';
