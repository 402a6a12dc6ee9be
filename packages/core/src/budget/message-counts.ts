import type { Message } from '../messages.js';
import type { ModelRequest, TokenEstimate } from '../model/adapter.js';

const EMPTY_REQUEST: ModelRequest = {
  instructions: '',
  history: [],
  currentRequest: { role: 'user', content: '' },
  continuation: [],
  tools: [],
};

/**
 * What each message adds to an otherwise empty request, measured with `estimate` alone: the
 * estimate with the message as history minus the estimate without it. Exact for estimators that
 * count messages one by one (all of Forge's). For an adapter whose estimator is injected (a test,
 * a custom profile) and offers no per-message counts of its own, so its tail cuts still use its one counter.
 */
export async function countMessagesWithEstimate(
  estimate: (request: ModelRequest) => TokenEstimate | Promise<TokenEstimate>,
  messages: readonly Message[],
): Promise<number[]> {
  const base = (await estimate(EMPTY_REQUEST)).tokens;
  const counts: number[] = [];
  for (const message of messages) counts.push((await estimate({ ...EMPTY_REQUEST, history: [message] })).tokens - base);
  return counts;
}
