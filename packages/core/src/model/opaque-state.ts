import { z } from 'zod';
import { hashMessages, sha256Hex } from '../hashing.js';
import { jsonObjectSchema, type JsonObject } from '../json.js';
import type { Message } from '../messages.js';
import type { ModelRequest } from './adapter.js';

/**
 * Provider-native compaction state: the items a provider returned when it compacted a
 * conversation (for OpenAI, the retained user messages and the encrypted compaction item), kept
 * exactly as received. Only the adapter and model that made it may read or send it back; everyone
 * else (traces, plugins, `/context`) sees the provider, model, hash and size only. The items may
 * contain user text in plain form.
 */
export const opaqueProviderStateSchema = z
  .object({
    provider: z.string().min(1),
    modelId: z.string().min(1),
    /** SHA-256 (hex) of `JSON.stringify(items)`. */
    itemHash: z.string().regex(/^[0-9a-f]{64}$/),
    /** UTF-8 size of `JSON.stringify(items)`. */
    bytes: z.number().int().min(0),
    items: z.array(jsonObjectSchema),
    /** `hashMessages` of the messages compacted into this state (not those of the state it chains from). */
    sourceHash: z.string().regex(/^[0-9a-f]{64}$/),
    /** How many messages `sourceHash` covers. */
    sourceMessages: z.number().int().min(0),
    /** `itemHash` of the state this one was made from, when compactions were chained. */
    previousItemHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable(),
  })
  .strict();

export type OpaqueProviderState = z.infer<typeof opaqueProviderStateSchema>;

/** What traces and plugins may know about opaque state: never the items themselves. */
export function describeOpaqueState(state: OpaqueProviderState): {
  readonly provider: string;
  readonly modelId: string;
  readonly itemHash: string;
  readonly bytes: number;
} {
  return { provider: state.provider, modelId: state.modelId, itemHash: state.itemHash, bytes: state.bytes };
}

/**
 * The state to store for the `items` a provider returned when it compacted `compacted`, chained
 * from `previous`: the items kept as received, with their hash and size and the source's hash.
 */
export function opaqueStateOf(options: {
  readonly provider: string;
  readonly modelId: string;
  readonly items: readonly JsonObject[];
  readonly compacted: readonly Message[];
  readonly previous: OpaqueProviderState | undefined;
}): OpaqueProviderState {
  const serialized = JSON.stringify(options.items);
  return {
    provider: options.provider,
    modelId: options.modelId,
    itemHash: sha256Hex(serialized),
    bytes: new TextEncoder().encode(serialized).length,
    items: [...options.items],
    sourceHash: hashMessages(options.compacted),
    sourceMessages: options.compacted.length,
    previousItemHash: options.previous?.itemHash ?? null,
  };
}

/**
 * The request without the history messages `state` replaces, for an adapter replaying it: when the
 * history starts with exactly the messages that were compacted they are dropped; a caller passing
 * only the tail is left alone.
 */
export function withoutReplacedHistory(request: ModelRequest, state: OpaqueProviderState): ModelRequest {
  const count = state.sourceMessages;
  if (count === 0 || request.history.length < count) return request;
  if (hashMessages(request.history.slice(0, count)) !== state.sourceHash) return request;
  return { ...request, history: request.history.slice(count) };
}
