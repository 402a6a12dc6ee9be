import { hashMessages, sha256Hex } from '../hashing.js';
import type { JsonObject } from '../json.js';
import type { ModelRequest, NativeCompactionRequest, TokenEstimate } from '../model/adapter.js';
import type { OpaqueProviderState } from '../model/opaque-state.js';
import { estimateWithFakeTokenizer } from './fake-estimator.js';
import { ScriptedModel, type ScriptedModelOptions, type ScriptedStep } from './scripted-model.js';

/**
 * A {@link ScriptedModel} whose adapter offers provider-native compaction, the way the OpenAI
 * adapter does: `compact` returns opaque items bound to this provider and model, and a request
 * that carries this model's state is estimated (and recorded) as it would be sent — without the
 * checkpoint text and the history messages the state replaces, plus one token per 4 bytes of items.
 */
export class NativeCompactionModel extends ScriptedModel {
  /** Every `compact` call, in order. */
  readonly compactions: NativeCompactionRequest[] = [];

  constructor(steps: readonly ScriptedStep[] = [], options: Omit<ScriptedModelOptions, 'estimate'> = {}) {
    const provider = options.provider ?? 'native';
    const modelId = options.modelId ?? 'native-model';
    super(steps, {
      ...options,
      provider,
      modelId,
      capabilities: { nativeCompaction: 'opaque-provider-item', ...options.capabilities },
      estimate: (request) => estimateAsSent(provider, modelId, request),
    });
  }

  async compact(request: NativeCompactionRequest): Promise<OpaqueProviderState> {
    this.compactions.push(request);
    const items: JsonObject[] = [
      {
        type: 'compaction',
        id: `cmp_${this.compactions.length}`,
        encrypted_content: `opaque:${hashMessages(request.messages).slice(0, 16)}`,
      },
    ];
    const serialized = JSON.stringify(items);
    return {
      provider: this.provider,
      modelId: this.modelId,
      itemHash: sha256Hex(serialized),
      bytes: new TextEncoder().encode(serialized).length,
      items,
      sourceHash: hashMessages(request.messages),
      sourceMessages: request.messages.length,
      previousItemHash: request.previous?.itemHash ?? null,
    };
  }

  /** True when `request` carries state this model made for the messages at the start of its history. */
  replays(request: ModelRequest): boolean {
    return replays(this.provider, this.modelId, request);
  }
}

function replays(provider: string, modelId: string, request: ModelRequest): boolean {
  const state = request.nativeState;
  if (state === undefined || state.provider !== provider || state.modelId !== modelId) return false;
  return (
    request.history.length >= state.sourceMessages &&
    hashMessages(request.history.slice(0, state.sourceMessages)) === state.sourceHash
  );
}

function estimateAsSent(provider: string, modelId: string, request: ModelRequest): TokenEstimate {
  const state = request.nativeState;
  if (state === undefined || !replays(provider, modelId, request)) return estimateWithFakeTokenizer(request);
  const { checkpoint: _replaced, nativeState: _opaque, ...rest } = request;
  const base = estimateWithFakeTokenizer({ ...rest, history: request.history.slice(state.sourceMessages) });
  const opaque = Math.ceil(state.bytes / 4);
  return {
    ...base,
    tokens: base.tokens + opaque,
    categories: { ...base.categories, checkpoint: base.categories.checkpoint + opaque },
  };
}
