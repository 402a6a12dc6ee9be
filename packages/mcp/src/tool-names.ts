import { sha256Hex } from '@forge/core';

/** The tool-name pattern model providers accept. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_TOOL_NAME = 64;
const SEPARATOR = '__';
const HASH_LENGTH = 8;

/** One tool of one server, before it is given a name the model will see. */
export interface ToolNameRequest {
  readonly server: string;
  readonly tool: string;
}

function plainName(request: ToolNameRequest): string {
  return `${request.server}${SEPARATOR}${request.tool}`;
}

function hashSuffix(request: ToolNameRequest): string {
  return sha256Hex(`${request.server}\u0000${request.tool}`).slice(0, HASH_LENGTH);
}

function sanitized(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** The sanitized `name`, cut so that `_<suffix>` fits after it. */
function withSuffix(name: string, suffix: string): string {
  const safe = sanitized(name);
  const tail = `_${suffix}`;
  return `${safe.slice(0, MAX_TOOL_NAME - tail.length)}${tail}`;
}

/**
 * Gives every MCP tool a name of the form `<server>__<tool>` that matches {@link TOOL_NAME_PATTERN}
 * and is unique among the result and `reserved` (the built-in tools). Characters providers reject
 * become `_`; a name too long, or clashing after that, gets a short hash of the server and tool
 * names instead of its end. The result depends only on the set of requests, not their order:
 * names that need no change are claimed first, then the rest in sorted order.
 *
 * Returns the names in the order of `requests`.
 */
export function assignToolNames(requests: readonly ToolNameRequest[], reserved: Iterable<string> = []): string[] {
  const taken = new Set(reserved);
  const names = new Map<number, string>();
  const order = requests
    .map((request, index) => ({ request, index, plain: plainName(request) }))
    .sort((left, right) => {
      const leftExact = TOOL_NAME_PATTERN.test(left.plain) ? 0 : 1;
      const rightExact = TOOL_NAME_PATTERN.test(right.plain) ? 0 : 1;
      if (leftExact !== rightExact) return leftExact - rightExact;
      if (left.plain !== right.plain) return left.plain < right.plain ? -1 : 1;
      return left.request.server < right.request.server
        ? -1
        : left.request.server > right.request.server
          ? 1
          : left.index - right.index;
    });

  for (const { request, index, plain } of order) {
    let name = sanitized(plain);
    if (name.length > MAX_TOOL_NAME || taken.has(name)) name = withSuffix(plain, hashSuffix(request));
    for (let attempt = 2; taken.has(name); attempt += 1) name = withSuffix(plain, `${hashSuffix(request)}_${attempt}`);
    taken.add(name);
    names.set(index, name);
  }
  return requests.map((_request, index) => names.get(index) ?? '');
}
