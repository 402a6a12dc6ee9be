import type { LanguageModelV4Message } from '@ai-sdk/provider';
import type { JsonObject, OpaqueProviderState } from '@forge/core';

/*
 * OpenAI's opaque compaction, Forge side. Forge compacts explicitly at its own boundaries with
 * `POST /responses/compact` (never the server-side `context_management` threshold), so a compaction
 * item can never appear in the middle of a tool loop and what it replaces is always a known range.
 *
 * On the way back, the AI SDK only knows a compaction item's id and encrypted content, so the
 * adapter puts a marker item in the prompt and swaps it, in the serialized request body, for the
 * stored items exactly as the provider returned them.
 */

/** The id of the marker compaction item the AI SDK encodes; swapped for the stored items before sending. */
export const REPLAY_MARKER_ID = 'forge_native_state_marker';

/** True when `state` may be sent to this provider and model (never to any other). */
export function canReplay(state: OpaqueProviderState | undefined, modelId: string): state is OpaqueProviderState {
  return state !== undefined && state.provider === 'openai' && state.modelId === modelId;
}

/** The prompt message standing in for the checkpoint while `state` is replayed. */
export function replayMarkerMessage(): LanguageModelV4Message {
  return {
    role: 'assistant',
    content: [
      {
        type: 'custom',
        kind: 'openai.compaction',
        providerOptions: { openai: { itemId: REPLAY_MARKER_ID, encryptedContent: '' } },
      },
    ],
  };
}

/** Replaces the marker item in a serialized Responses request body by `items`, untouched. */
export function spliceReplayItems(body: string, items: readonly JsonObject[]): string {
  const parsed = JSON.parse(body) as { input?: unknown };
  if (!Array.isArray(parsed.input)) return body;
  const input = parsed.input as unknown[];
  const index = input.findIndex(
    (item) => isRecord(item) && item['type'] === 'compaction' && item['id'] === REPLAY_MARKER_ID,
  );
  if (index === -1) return body;
  input.splice(index, 1, ...items);
  return JSON.stringify(parsed);
}

/** A fetch that applies `spliceReplayItems` to JSON request bodies. */
export function replayingFetch(items: readonly JsonObject[], baseFetch: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    if (init !== undefined && typeof init.body === 'string')
      return baseFetch(input, { ...init, body: spliceReplayItems(init.body, items) });
    return baseFetch(input, init);
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
