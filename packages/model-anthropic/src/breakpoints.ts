import type { LanguageModelV4Message, LanguageModelV4Prompt, SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { ModelRequest } from '@forge/core';
import type { AnthropicCacheLifetime } from './settings.js';

/*
 * Anthropic caches nothing it is not told to: a request marks up to four breakpoints, and a later
 * request reads the cache up to the last breakpoint whose prefix it repeats byte for byte. Forge's
 * request begins with what changes least (tools sorted by name, then the instructions, then the
 * checkpoint), so it marks three places:
 *
 * 1. the system message: tools and instructions, the same for the whole session;
 * 2. the checkpoint message (or the server compaction blocks replayed in its place): the same
 *    from one compaction to the next;
 * 3. the newest message: the next request of the conversation repeats everything before it.
 *
 * A compaction changes the checkpoint and drops history, so breakpoint 2 moves with the new
 * checkpoint text and breakpoint 3 with the new newest message; breakpoint 1 does not move.
 */

/** Where the breakpoints of one request are: indexes into the encoded prompt. */
export interface BreakpointPlacement {
  readonly instructions?: number;
  readonly checkpoint?: number;
  readonly newest?: number;
}

/** The prompt indexes to mark for `request`, as `toLanguageModelPrompt` encodes it. */
export function placeBreakpoints(prompt: LanguageModelV4Prompt, request: ModelRequest): BreakpointPlacement {
  const instructions = prompt[0]?.role === 'system' ? 0 : undefined;
  const afterInstructions = instructions === undefined ? 0 : 1;
  const hasCheckpoint = request.checkpoint !== undefined && request.checkpoint.length > 0;
  // The checkpoint's message, or the replayed compaction blocks that stand in for it.
  const checkpoint = hasCheckpoint && prompt[afterInstructions] !== undefined ? afterInstructions : undefined;
  const last = prompt.length - 1;
  const newest = last >= 0 && last !== instructions && last !== checkpoint ? last : undefined;
  return {
    ...(instructions === undefined ? {} : { instructions }),
    ...(checkpoint === undefined ? {} : { checkpoint }),
    ...(newest === undefined ? {} : { newest }),
  };
}

function withCacheControl(message: LanguageModelV4Message, lifetime: AnthropicCacheLifetime): LanguageModelV4Message {
  const anthropic = { ...message.providerOptions?.['anthropic'], cacheControl: { type: 'ephemeral', ttl: lifetime } };
  const providerOptions: SharedV4ProviderOptions = { ...message.providerOptions, anthropic };
  return { ...message, providerOptions } as LanguageModelV4Message;
}

/** The prompt with a `cache_control` breakpoint of `lifetime` on each placed message. */
export function withBreakpoints(
  prompt: LanguageModelV4Prompt,
  request: ModelRequest,
  lifetime: AnthropicCacheLifetime,
): LanguageModelV4Prompt {
  const placement = placeBreakpoints(prompt, request);
  const marked = new Set([placement.instructions, placement.checkpoint, placement.newest]);
  return prompt.map((message, index) => (marked.has(index) ? withCacheControl(message, lifetime) : message));
}
