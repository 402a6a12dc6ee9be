import { sha256Hex } from '../hashing.js';
import type { ToolDefinition } from '../model/adapter.js';
import { toolsInWireOrder } from '../model/tool-order.js';

export interface PromptCacheKeyInput {
  /** The conversation: a session id, or a run id for a run outside any session. */
  readonly conversation: string;
  readonly provider: string;
  readonly modelId: string;
  readonly instructionsHash: string;
  readonly tools: readonly ToolDefinition[];
}

/**
 * The prompt cache key of a conversation's requests. It is derived from everything that makes up
 * the start of every request — the model, the tool schemas and the instructions — besides the
 * conversation, so requests under one key always begin alike: a changed AGENTS.md, tool set or
 * model gets a new key instead of reusing one with a different prefix.
 */
export function promptCacheKey(input: PromptCacheKeyInput): string {
  const tools = sha256Hex(JSON.stringify(toolsInWireOrder(input.tools)));
  const digest = sha256Hex(
    JSON.stringify([input.conversation, input.provider, input.modelId, input.instructionsHash, tools]),
  );
  return `forge-${digest.slice(0, 48)}`;
}
