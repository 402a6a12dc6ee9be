import type { Message } from '../messages.js';
import type {
  ModelAdapter,
  ModelCallOptions,
  ModelCapabilities,
  ModelRequest,
  ModelStreamPart,
  NativeCompactionRequest,
  TokenEstimate,
} from './adapter.js';
import type { OpaqueProviderState } from './opaque-state.js';

type Compact = NonNullable<ModelAdapter['compact']>;

/**
 * What a wrapper changes about a model; everything it leaves out is the model's own. Each hook
 * gets the wrapped model's own method as `next`.
 */
export interface ModelMiddleware {
  readonly capabilities?: (capabilities: ModelCapabilities) => ModelCapabilities;
  /** Changes each request before it is counted or streamed (a checkpoint installed, for instance). */
  readonly transformRequest?: (request: ModelRequest) => ModelRequest;
  readonly estimateRequestTokens?: (
    request: ModelRequest,
    next: ModelAdapter['estimateRequestTokens'],
  ) => Promise<TokenEstimate>;
  /** Counts each message of a history; a wrapper that changes request counts changes these the same way. */
  readonly countMessageTokens?: (
    messages: readonly Message[],
    next: ModelAdapter['countMessageTokens'],
  ) => Promise<readonly number[]>;
  readonly wrapStream?: (
    request: ModelRequest,
    options: ModelCallOptions,
    next: ModelAdapter['doStream'],
  ) => AsyncIterable<ModelStreamPart>;
  /** Native compaction through the wrapper, or `false` to offer none; default the model's own, when it has one. */
  readonly compact?:
    | false
    | ((request: NativeCompactionRequest, options: ModelCallOptions, next: Compact) => Promise<OpaqueProviderState>);
}

/**
 * `model` with `middleware` applied: the one way Forge changes how a model counts, what it is sent
 * or whether it may send at all (calibration, measuring without a key, the evals' recorders).
 */
export function wrapModelAdapter(options: {
  readonly model: ModelAdapter;
  readonly middleware: ModelMiddleware;
}): ModelAdapter {
  const { model, middleware } = options;
  const transform = middleware.transformRequest ?? ((request: ModelRequest) => request);
  const estimate: ModelAdapter['estimateRequestTokens'] = (request) => model.estimateRequestTokens(request);
  const count: ModelAdapter['countMessageTokens'] = (messages) => model.countMessageTokens(messages);
  const stream: ModelAdapter['doStream'] = (request, callOptions) => model.doStream(request, callOptions);
  const compact = compactThrough(model, middleware.compact);
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    get capabilities() {
      return middleware.capabilities?.(model.capabilities) ?? model.capabilities;
    },
    estimateRequestTokens: (request) =>
      middleware.estimateRequestTokens?.(transform(request), estimate) ?? estimate(transform(request)),
    countMessageTokens: (messages) => middleware.countMessageTokens?.(messages, count) ?? count(messages),
    doStream: (request, callOptions) =>
      middleware.wrapStream?.(transform(request), callOptions, stream) ?? stream(transform(request), callOptions),
    ...(compact === undefined ? {} : { compact }),
  };
}

function compactThrough(model: ModelAdapter, hook: ModelMiddleware['compact']): Compact | undefined {
  if (hook === false || model.compact === undefined) return undefined;
  const own: Compact = (request, callOptions) => (model.compact as Compact).call(model, request, callOptions);
  if (hook === undefined) return own;
  return (request, callOptions) => hook(request, callOptions, own);
}
