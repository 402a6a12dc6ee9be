export {
  CorruptFileError,
  SessionLockedError,
  SessionNotFoundError,
  UnsupportedSchemaError,
  type LockOwner,
} from './errors.js';
export {
  checkForgeHome,
  ensureForgeHome,
  ForgeHomeError,
  forgeHomeLayout,
  resolveForgeHome,
  type ForgeHomeLayout,
  type ResolveForgeHomeOptions,
} from './home.js';
export { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from './private-fs.js';
export {
  DEFAULT_MAX_STATE_BYTES,
  MAIN_LANE,
  nativeStateDirectory,
  OPAQUE_STATE_SCHEMA_VERSION,
  OpaqueStateStore,
  opaqueStateFileSchema,
  refusesReplay,
  shouldDiscardReplayedState,
  type ConversationIdentity,
  type OpaqueStateFile,
  type OpaqueStateStoreOptions,
  type ReplayDecision,
  type ReplayTarget,
} from './opaque-state/index.js';
export {
  MAX_ERROR_MESSAGE_CHARS,
  SESSION_SCHEMA_VERSION,
  SUPPORTED_SESSION_SCHEMAS,
  storedCostSchema,
  type CheckpointSource,
  type EngineRunFacts,
  type SessionRecord,
} from './records.js';
export { redactMessage } from './redact-message.js';
export { discardSession } from './session-discard.js';
export { SESSION_LOG_FILE_NAME } from './session-files.js';
export {
  lastSession,
  listSessions,
  sessionIds,
  type LastSessionFilter,
  type ListSessionsOptions,
  type SessionSummary,
} from './session-list.js';
export { sessionRunIds, type SessionRunIds } from './session-run-ids.js';
export {
  refreshSessionIndex,
  sessionIndex,
  type IndexDamage,
  type SessionIndex,
  type SessionTotals,
} from './session-index.js';
export {
  currentCheckpointRecord,
  readCheckpointWindow,
  sessionTotals,
  type CheckpointWindow,
} from './session-lookups.js';
export {
  createSession,
  openSession,
  type CreateSessionOptions,
  type OpenSessionOptions,
  type SessionWriterOptions,
} from './session-open.js';
export { loadTranscript } from './session-read.js';
export { loadSessionWindow, type StoredSessionWindow } from './session-window.js';
export type {
  CheckpointSent,
  SessionRun,
  SessionTranscript,
  SessionWarning,
  StoredCheckpoint,
} from './session-state.js';
export {
  closeDanglingToolCalls,
  INTERRUPTED_RUN_CODE,
  repairInterruptedSession,
  type SessionRepairWarning,
} from './session-repair.js';
export {
  SessionWriter,
  type CheckpointInput,
  type LoadedSession,
  type RunEndInput,
  type RunStartInput,
} from './session-writer.js';
export {
  createTraceWriter,
  TRACE_EXCLUDED_EVENTS,
  traceFile,
  type EngineEventEnvelope,
  type EngineEventListener,
  type TraceWriter,
} from './trace-writer.js';
export { readTrace, readTraceLines, type EnvelopeParser, type TraceEntry, type TraceLine } from './trace-reader.js';
export { readStoredLines } from './stored-file.js';
/** One record as a log line (checksum and newline included), for tools that write logs in bulk; Forge itself appends through `SessionWriter`. */
export { encodeRecord } from './record-codec.js';
export { v1SessionSchema, type V1Session } from './v1.js';
export { forgetCalibration, readCalibration, recordCalibration, type ModelCalibration } from './calibration-store.js';
export { findPrunable, prune, traceUsage, type PruneCandidate, type TraceRetentionPolicy } from './home-gc.js';
