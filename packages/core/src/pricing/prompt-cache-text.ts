import type { ModelRequest } from '../model/adapter.js';
import { toolsInWireOrder } from '../model/tool-order.js';

/**
 * A request as a prefix cache sees it, for simulating one in process (the evals): tool schemas in
 * wire order, instructions, checkpoint view, then each message of the history, the current request
 * and the continuation, one part per line. Two requests share a prefix of this text exactly when
 * an adapter would send them with the same start. Native state stands in for the checkpoint with
 * its items as sent.
 */
export function promptCacheText(request: ModelRequest): string {
  const parts = [
    JSON.stringify(toolsInWireOrder(request.tools)),
    JSON.stringify(request.instructions),
    request.nativeState === undefined
      ? JSON.stringify(request.checkpoint ?? '')
      : JSON.stringify(request.nativeState.items),
    ...[...request.history, request.currentRequest, ...request.continuation].map((message) => JSON.stringify(message)),
  ];
  return parts.join('\n');
}
