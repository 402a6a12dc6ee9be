/* `@forge/core/checkpoint`: the checkpoint model — schema, memory, digest, build, validation and the rendered view. */
export { CHECKPOINT_CAPS, type CheckpointCaps } from './caps.js';
export {
  CHECKPOINT_SAFETY_LABELS,
  emptyCheckpointMemory,
  type Artifact,
  type CheckpointState,
  type ConstraintRecord,
  type ContextCheckpoint,
  type DigestEntry,
  type ForgeStateCheckpoint,
} from './schema.js';
export { commandUri, fileUri, withRunIds, type CheckpointTranscriptEntry } from './host-metadata.js';
export { truncateWithoutClaims } from './authority-text.js';
export { truncateText } from './text.js';
export { buildDigest, digestLayout } from './digest.js';
export { earlierRequests, MAX_EARLIER_REQUESTS, userConstraints } from './user-requests.js';
export { capMemory } from './memory-apply.js';
export { observeArtifactHashes, type ArtifactHashes } from './staleness.js';
export { buildForgeStateCheckpoint, sourceMatchesTranscript } from './build.js';
export { renderCheckpointView } from './view.js';
export { validateCheckpoint } from './validate.js';
export {
  DEFAULT_WORKING_SET_BUDGET,
  readFilesInHand,
  workingSetShown,
  type WorkingSetBudget,
  type WorkingSetContents,
  type WorkingSetFileContent,
  type WorkingSetReader,
  type WorkingSetRenderInput,
  type WorkingSetShownFile,
} from './working-set.js';
export { checkCoverage, type CoverageItem } from './coverage.js';
export { checkpointHash } from '../hashing.js';
