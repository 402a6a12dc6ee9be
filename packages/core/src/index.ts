/*
 * The root of `@forge/core`: what an application or an adapter needs to run an agent — the run
 * loop and its options, messages, the model-adapter and tool contracts, events, errors and ids.
 * Everything else has its own entry point: `@forge/core/budget`, `/checkpoint`, `/compaction`,
 * `/view`, `/pricing`, `/redaction` and `/testing` (docs/architecture.md lists them).
 * `packages/core/src/exports.test.ts` keeps this list short and every name in it used.
 */

// The run loop
export { runAgent } from './run/run-agent.js';
export type { RunAgentOptions, RunResult, RunSession } from './run/types.js';
export { addUsage } from './run/usage.js';
export {
  CONTEXT_MODES,
  DEFAULT_CONTEXT_POLICY,
  resolveContextPolicy,
  type ContextMode,
  type ContextPolicy,
} from './budget/policy.js';
export { createInstructionSnapshot, type InstructionSnapshot } from './instructions.js';

// Messages
export {
  assistantText,
  findUnpairedToolCalls,
  messageSchema,
  type AssistantMessage,
  type Message,
  type ReasoningPart,
  type ToolMessage,
  type ToolResultOutput,
  type ToolResultPart,
} from './messages.js';
export { hashMessages, MessagesHasher, sha256Hex } from './hashing.js';
export { jsonObjectSchema, jsonValueSchema, type JsonObject, type JsonValue } from './json.js';

// The model-adapter contract, and what every adapter uses to fill it in
export {
  emptyUsage,
  type FinishReason,
  type ModelAdapter,
  type ModelCallOptions,
  type ModelCapabilities,
  type ModelRequest,
  type ModelStreamPart,
  type NativeCompactionRequest,
  type TokenCategories,
  type TokenEstimate,
  type TokenEstimateMethod,
  type ToolDefinition,
  type Usage,
} from './model/adapter.js';
export {
  opaqueProviderStateSchema,
  opaqueStateOf,
  withoutReplacedHistory,
  type OpaqueProviderState,
} from './model/opaque-state.js';
export { toolsInWireOrder } from './model/tool-order.js';
export { wrapModelAdapter } from './model/wrap-model.js';
export {
  resolveModelCapabilities,
  withoutDateSuffix,
  type CapabilityTableEntry,
  type ConfiguredLimits,
  type ContextCapabilities,
} from './budget/capabilities.js';
export type { ChatLayout, LayoutPiece } from './budget/chat-layout.js';
export { countTextConservatively, createConservativeEstimator } from './budget/conservative-estimator.js';
export { countMessagesWithEstimate } from './budget/message-counts.js';
export { createRequestEstimator, type FramingOverhead, type RequestEstimator } from './budget/request-estimator.js';
export type { PriceSheet, TokenPrices } from './pricing/price-sheet.js';
export type { PromptCacheRules } from './pricing/prompt-cache.js';

// The tool contract
export {
  toolDefinitions,
  type ApprovalDecision,
  type ApprovalGate,
  type Tool,
  type ToolCallRequest,
  type ToolEscalation,
  type ToolExecutionResult,
  type ToolRisk,
} from './tools/tool.js';
export { MAX_TOOL_ERROR_TEXT_BYTES } from './tools/error-text-cap.js';

// Events
export {
  EVENT_SCHEMA_VERSION,
  type ErrorSummary,
  type EventEnvelope,
  type EventListener,
  type ForgeEvent,
  type RunStatus,
} from './events/events.js';
export { createEmitter } from './events/emitter.js';
export type { ContextUsageReconciledEvent } from './budget/context-events.js';
export type { CompactionEvent, CompactorDisclosure } from './compaction/events.js';

// Errors and ids
export {
  AuthError,
  CancelledError,
  ContextOverflowError,
  ForgeError,
  InvalidInputError,
  RateLimitError,
  TransportError,
} from './errors.js';
export { summarizeError } from './run/error-summary.js';
export { assertSafeId, createId, isSafeId } from './ids.js';
