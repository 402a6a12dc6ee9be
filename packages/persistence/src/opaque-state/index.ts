export {
  DEFAULT_MAX_STATE_BYTES,
  MAIN_LANE,
  nativeStateDirectory,
  OpaqueStateStore,
  refusesReplay,
  shouldDiscardReplayedState,
  type OpaqueStateStoreOptions,
  type ReplayDecision,
  type ReplayTarget,
} from './opaque-state-store.js';
export {
  OPAQUE_STATE_SCHEMA_VERSION,
  opaqueStateFileSchema,
  stateFilePath,
  type ConversationIdentity,
  type OpaqueStateFile,
} from './state-file.js';
