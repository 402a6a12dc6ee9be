export { CHECKPOINT_CAPS, checkpointCapsSchema, type CheckpointCaps } from './caps.js';
export * from './schema.js';
export {
  CHECKPOINT_NOTE_TOOL,
  EDIT_FILE_TOOL,
  READ_FILE_TOOL,
  RUN_COMMAND_TOOL,
  commandUri,
  fileUri,
  formatCommand,
  normalizeArtifactUri,
  toolOutputUri,
  withRunIds,
  type CheckpointTranscriptEntry,
} from './host-metadata.js';
export { APPROVAL_REMOVED_MARKER, findApprovalClaim, findPolicyText, removeApprovalClaims } from './authority-text.js';
export { historicalLabel, looksLikeVerification, verificationVerdict, type VerificationVerdict } from './verification-text.js';
export { buildDigest, digestLayout } from './digest.js';
export { MAX_EARLIER_REQUESTS, earlierRequests, statedConstraints, userConstraints } from './user-requests.js';
export {
  evidenceInputSchema,
  memoryUpdateJsonSchema,
  memoryUpdateSchema,
  type AcceptedMemoryUpdate,
  type AcceptedPlanStep,
  type EvidenceInput,
  type MemoryUpdate,
  type MemoryUpdateKind,
} from './memory-update.js';
export {
  validateMemoryUpdate,
  type MemoryRejectionCode,
  type MemoryValidation,
  type MemoryValidationContext,
} from './memory-validator.js';
export { applyMemoryUpdate, capMemory, supersededDecisionIds } from './memory-apply.js';
export { reduceMemoryFromTranscript } from './memory-replay.js';
export { createCheckpointNoteTool, type CheckpointNoteToolOptions } from './checkpoint-note-tool.js';
export {
  currentArtifactHashes,
  factStatus,
  observeArtifactHashes,
  type ArtifactHashes,
  type FactStatus,
} from './staleness.js';
export {
  buildForgeStateCheckpoint,
  checkpointHash,
  checkpointMatchesTranscript,
  type BuildForgeStateCheckpointInput,
} from './build.js';
export {
  CHECKPOINT_VIEW_NOTE,
  CHECKPOINT_VIEW_SECTIONS,
  checkpointViewCharBound,
  renderCheckpointView,
} from './view.js';
export { validateCheckpoint, type CheckpointValidation } from './validate.js';
