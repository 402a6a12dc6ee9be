import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../model/adapter.js';
import { promptCacheKey, type PromptCacheKeyInput } from './prompt-cache-key.js';

const read: ToolDefinition = { name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object' } };
const search: ToolDefinition = { name: 'search', description: 'Search.', inputSchema: { type: 'object' } };
const base: PromptCacheKeyInput = {
  conversation: 'sess_1',
  provider: 'openai',
  modelId: 'gpt-5.1',
  instructionsHash: 'a'.repeat(64),
  tools: [read, search],
};

describe('promptCacheKey', () => {
  it('is stable for a conversation and independent of the order tools were listed in', () => {
    expect(promptCacheKey(base)).toBe(promptCacheKey({ ...base, tools: [search, read] }));
    expect(promptCacheKey(base)).toMatch(/^forge-[0-9a-f]{48}$/);
  });

  it('changes with anything at the start of the request, so one key never covers two prefixes', () => {
    const key = promptCacheKey(base);
    for (const changed of [
      { conversation: 'sess_2' },
      { modelId: 'gpt-5.2' },
      { provider: 'compatible' },
      { instructionsHash: 'b'.repeat(64) },
      { tools: [read] },
      { tools: [read, { ...search, description: 'Search the workspace.' }] },
    ]) {
      expect(promptCacheKey({ ...base, ...changed })).not.toBe(key);
    }
  });
});
