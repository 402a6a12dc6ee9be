import type { Usage } from '../model/adapter.js';

function addOptional(left: number | undefined, right: number | undefined): number | undefined {
  if (left === undefined) return right;
  if (right === undefined) return left;
  return left + right;
}

/** Adds two usage records field by field; a field stays undefined only if neither side reported it. */
export function addUsage(left: Usage, right: Usage): Usage {
  return {
    inputTokens: addOptional(left.inputTokens, right.inputTokens),
    cacheReadTokens: addOptional(left.cacheReadTokens, right.cacheReadTokens),
    cacheWriteTokens: addOptional(left.cacheWriteTokens, right.cacheWriteTokens),
    outputTokens: addOptional(left.outputTokens, right.outputTokens),
    reasoningTokens: addOptional(left.reasoningTokens, right.reasoningTokens),
  };
}
