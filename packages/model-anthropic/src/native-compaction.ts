import type { LanguageModelV4Content, LanguageModelV4Message } from '@ai-sdk/provider';
import type { JsonObject, OpaqueProviderState } from '@forge/core';

/*
 * Anthropic's server compaction, Forge side, through the AI SDK's `compaction` provider option
 * (on-demand: one request whose answer is a `compaction` block, its summary and its signature).
 * Forge asks for it at its own boundaries, never with a server-side trigger, so what a block
 * replaces is always a known range. On the way back the block travels as the SDK encodes it: an
 * assistant text part whose provider options say `type: "compaction"` and carry the signature.
 */

/** One compaction block as Anthropic returned it. */
interface CompactionBlock extends JsonObject {
  readonly type: 'compaction';
  readonly content: string;
  readonly signature: string;
}

/** The ids whose server compaction the AI SDK documents (its model catalogue marks the others `compaction: false`). */
const COMPACTING_MODELS = /^claude-(opus-4-[678]|sonnet-4-6|opus-5|sonnet-5|haiku-5|fable-5)/;

/** True when `modelId` can compact on the server. */
export function supportsNativeCompaction(modelId: string): boolean {
  return COMPACTING_MODELS.test(modelId);
}

function isBlock(item: JsonObject): item is CompactionBlock {
  return item['type'] === 'compaction' && typeof item['content'] === 'string' && typeof item['signature'] === 'string';
}

/** True when `state` may be sent to this model (never to any other provider or model). */
export function canReplay(state: OpaqueProviderState | undefined, modelId: string): state is OpaqueProviderState {
  return (
    state !== undefined && state.provider === 'anthropic' && state.modelId === modelId && state.items.every(isBlock)
  );
}

/** The prompt message standing in for the checkpoint while `state` is replayed: its blocks, untouched. */
export function compactionMessage(state: OpaqueProviderState): LanguageModelV4Message {
  return {
    role: 'assistant',
    content: state.items.filter(isBlock).map((block) => ({
      type: 'text',
      text: block.content,
      providerOptions: { anthropic: { type: 'compaction', signature: block.signature } },
    })),
  };
}

/** The text of the replayed blocks, for estimates. */
export function compactionText(state: OpaqueProviderState): string {
  return state.items
    .filter(isBlock)
    .map((block) => block.content)
    .join('\n');
}

/** The compaction blocks of a generate result's content; empty when the answer had none. */
export function compactionBlocks(content: readonly LanguageModelV4Content[]): CompactionBlock[] {
  return content.flatMap((part): CompactionBlock[] => {
    if (part.type !== 'text') return [];
    const metadata = part.providerMetadata?.['anthropic'] as Record<string, unknown> | undefined;
    if (metadata?.['type'] !== 'compaction' || typeof metadata['signature'] !== 'string') return [];
    return [{ type: 'compaction', content: part.text, signature: metadata['signature'] }];
  });
}
