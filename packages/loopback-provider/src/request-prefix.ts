import type { RecordedRequest } from './replies.js';

/*
 * A request as a provider caches it: everything that is not the conversation (model, tool
 * schemas, options), then the conversation item by item (Responses `input`, Chat Completions and
 * Anthropic Messages `messages`). Each part is the JSON the client sent, re-serialized without
 * reordering and without Anthropic's `cache_control` markers, so two parts are equal exactly when
 * the client sent the same content for them.
 */

type Body = Record<string, unknown>;

function conversationKey(body: Body): 'input' | 'messages' | undefined {
  if (Array.isArray(body['input'])) return 'input';
  if (Array.isArray(body['messages'])) return 'messages';
  return undefined;
}

/** Anthropic's `cache_control` marks where to cache; it is not part of the cached content, and moves from request to request. */
function withoutBreakpoints(key: string, value: unknown): unknown {
  return key === 'cache_control' ? undefined : value;
}

/** The parts of a recorded request in cache order; the first is the request without its conversation. */
function requestParts(request: RecordedRequest): string[] {
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Body;
  const key = conversationKey(body);
  const { [key ?? '']: conversation, ...rest } = body;
  const items = Array.isArray(conversation) ? (conversation as unknown[]) : [];
  return [JSON.stringify(rest, withoutBreakpoints), ...items.map((item) => JSON.stringify(item, withoutBreakpoints))];
}

/** The text a prefix cache compares: the parts in order, one per line. */
export function cacheText(request: RecordedRequest): string {
  return requestParts(request).join('\n');
}

/** How two consecutive requests relate: whether the later one only grew at the end, and where the first difference is. */
export interface PrefixComparison {
  /** The earlier request is entirely the start of the later one: nothing it sent changed, the later one only grew at the end. */
  readonly extends: boolean;
  /** The first part that differs, as sent by each request. */
  readonly firstDifference?: {
    readonly index: number;
    readonly earlier: string | undefined;
    readonly later: string | undefined;
  };
}

export function comparePrefix(earlier: RecordedRequest, later: RecordedRequest): PrefixComparison {
  const before = requestParts(earlier);
  const after = requestParts(later);
  let shared = 0;
  while (shared < before.length && shared < after.length && before[shared] === after[shared]) shared += 1;
  const extendsEarlier = shared === before.length && after.length > before.length;
  return {
    extends: extendsEarlier,
    ...(extendsEarlier ? {} : { firstDifference: { index: shared, earlier: before[shared], later: after[shared] } }),
  };
}
