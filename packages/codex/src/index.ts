export * from './errors.js';
export {
  resolveCodexBinary,
  CODEX_BINARY_ENV,
  type ResolvedCodexBinary,
  type ResolveCodexBinaryOptions,
} from './app-server/binary.js';
export {
  CodexAppServer,
  type CodexAppServerOptions,
  type CodexApprovalPolicy,
  type CodexNotification,
  type CodexSandboxMode,
  type CodexServerInfo,
  type CodexThreadInfo,
  type CodexThreadOptions,
} from './app-server/client.js';
export {
  approvalHandlerFromGate,
  codexToolNames,
  toToolCallRequest,
  type CodexApprovalDecision,
  type CodexApprovalHandler,
  type CodexApprovalRequest,
  type CodexFileChangeSummary,
} from './app-server/approvals.js';
export { responsesProviderOverrides } from './app-server/provider-config.js';
export { generateProtocol, type GeneratedProtocol } from './app-server/generate-protocol.js';
export { TESTED_CODEX_VERSION, isSupportedCodexVersion, versionFromUserAgent } from './app-server/version.js';
export {
  ACTIVE_VIEW_MARKER,
  renderActiveView,
  requestFromActiveView,
  type CodexActiveView,
  type RenderedActiveView,
} from './engine/active-view.js';
export { estimateWrapperTokens, type WrapperTokenEstimate } from './engine/wrapper-estimate.js';
export type {
  CodexCompactionRecord,
  CodexEngineEvent,
  CodexEventEnvelope,
  CodexEventListener,
  CodexOnlyEvent,
  CodexTokenBreakdown,
  CodexThreadFallbackReason,
  CodexThreadSelection,
  CodexTokenUsageRecord,
} from './engine/events.js';
export {
  runCodexTurn,
  type CodexRunFacts,
  type CodexRunResult,
  type RunCodexTurnOptions,
} from './engine/run-codex-turn.js';
export { compactCodexThread, type CodexCompactionResult } from './engine/compact-thread.js';
export {
  importCodexRollout,
  serializeImportState,
  type CodexRolloutImport,
  type ImportCodexRolloutOptions,
} from './rollout/import-rollout.js';
export { ImportCheckpointBuilder } from './rollout/import-checkpoint.js';
export { MAX_ROLLOUT_LINE_BYTES, readRolloutLines, type RolloutLine } from './rollout/rollout-lines.js';
export { RolloutReducer, type RolloutSourceSummary } from './rollout/reduce.js';
export { hashArtifacts } from './rollout/workspace-hashes.js';
export { renderImportView, defaultImportViewCaps, type ImportViewCaps } from './rollout/view.js';
export {
  importStateLimits,
  type CodexImportState,
  type CommandRecord,
  type CompactionRecord,
  type UserEvidence,
  type FailureRecord,
  type FileArtifact,
  type TokenCounts,
  type TokenUsageRecord,
} from './rollout/import-state.js';
export { toCheckpointState } from './rollout/checkpoint-state.js';
