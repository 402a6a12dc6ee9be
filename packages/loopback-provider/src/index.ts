export {
  DEEPSEEK_LOOPBACK,
  startLoopbackProvider,
  type LoopbackPromptCacheOptions,
  type LoopbackProvider,
  type LoopbackProviderOptions,
} from './server.js';
export { cacheText, comparePrefix, type PrefixComparison } from './request-prefix.js';
export {
  turn,
  type CompactionReply,
  type CutStreamReply,
  type HangReply,
  type HttpErrorReply,
  type LoopbackReply,
  type LoopbackToolCall,
  type LoopbackUsage,
  type MalformedReply,
  type RecordedRequest,
  type ReplyFunction,
  type StopPoint,
  type StreamFailedReply,
  type TurnReply,
} from './replies.js';
export type { ChatUsageStyle } from './chat-protocol.js';
