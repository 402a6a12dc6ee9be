export { previewSessionCompaction } from './session-preview.js';
export { compactPreviewReport, type CompactPreviewReport, type PreviewRange } from './compact-preview-report.js';
export {
  openSessionHandle,
  runSessionTurn,
  SessionHandle,
  type EngineTurnOutcome,
  type OpenSessionHandleOptions,
  type SessionEngineInput,
  type SessionEngineTurnOptions,
  type SessionTurnOptions,
  type SessionTurnResult,
  type SessionTurnWarning,
} from './session-turn.js';
export {
  viewOfStoredSession,
  viewOfStoredWindow,
  type StoredSessionView,
  type StoredSessionViewOptions,
  type StoredWindowView,
} from './stored-session-view.js';
export {
  requestViewCheckpoint,
  selectSessionView,
  type SessionView,
  type SessionViewCheckpoint,
  type SessionViewOptions,
} from './session-view.js';
export {
  CODEX_IMPORT_STRATEGY,
  currentArtifactHashesFor,
  factDependencies,
  installCheckpoint,
  renderActiveCheckpoint,
  resolveIndexedCheckpoint,
  resolveStoredCheckpoint,
  type ActiveCheckpoint,
  type ArtifactHashSource,
  type ResolvedCheckpoint,
} from './checkpoint-install.js';
export {
  compactSession,
  createSessionContextManager,
  type SessionCompactionOptions,
  type SessionCompactOptions,
  type SessionCompactResult,
} from './session-compaction.js';
export { readWorkingSet, reportWorkingSetSent, workingSetFor, type FileTextRedaction } from './working-set-input.js';
export { SESSION_CHECKPOINT_OPTIONS, sessionCompaction } from './compaction-settings.js';
export { manualCompactionTracePrefix, openCompactionTrace, type CompactionTrace } from './compaction-trace.js';
export {
  type EngineCompactOutcome,
  type EngineTurn,
  type SessionEngine,
  type SessionEngineResult,
} from './session-engine.js';
export { estimationOnlyModel } from './estimation-only-model.js';
