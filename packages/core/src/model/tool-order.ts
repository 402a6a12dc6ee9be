import type { ToolDefinition } from './adapter.js';

/**
 * Tools in the order every request sends them: by name, compared by code unit, so the schemas at
 * the start of a request never move because a caller listed them differently.
 */
export function toolsInWireOrder<T extends Pick<ToolDefinition, 'name'>>(tools: readonly T[]): T[] {
  return [...tools].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
}
