import type { AssistantMessage, ReasoningPart, TextPart, ToolCallPart } from '../messages.js';
import {
  emptyUsage,
  type FinishReason,
  type ModelAdapter,
  type ModelCallOptions,
  type ModelRequest,
  type Usage,
} from '../model/adapter.js';
import type { RunState } from './run-state.js';

export type StepOutcome =
  | {
      readonly kind: 'finished';
      readonly message: AssistantMessage;
      readonly finishReason: FinishReason;
      readonly usage: Usage;
    }
  /** The stream failed or was aborted. `partialText` is what had streamed; tool calls are never kept from a broken stream. */
  | { readonly kind: 'broken'; readonly error: unknown; readonly partialText: string };

/**
 * Consumes one model stream into an assistant message, keeping parts in the order they arrived
 * and merging consecutive text deltas into one text part.
 */
export async function runModelStep(
  model: ModelAdapter,
  request: ModelRequest,
  signal: AbortSignal,
  onDelta: (delta: string) => void,
  callOptions: Omit<ModelCallOptions, 'signal'> = {},
): Promise<StepOutcome> {
  const parts: (TextPart | ReasoningPart | ToolCallPart)[] = [];
  let streamedText = '';
  try {
    for await (const part of model.doStream(request, { ...callOptions, signal })) {
      signal.throwIfAborted();
      switch (part.type) {
        case 'text-delta': {
          if (part.delta.length === 0) break;
          streamedText += part.delta;
          const last = parts.at(-1);
          if (last?.type === 'text') parts[parts.length - 1] = { type: 'text', text: last.text + part.delta };
          else parts.push({ type: 'text', text: part.delta });
          onDelta(part.delta);
          break;
        }
        case 'reasoning':
        case 'tool-call':
          parts.push(part.part);
          break;
        case 'finish':
          return {
            kind: 'finished',
            message: { role: 'assistant', content: parts },
            finishReason: part.finishReason,
            usage: part.usage,
          };
      }
    }
    signal.throwIfAborted();
    return {
      kind: 'finished',
      message: { role: 'assistant', content: parts },
      finishReason: 'other',
      usage: emptyUsage,
    };
  } catch (error) {
    return { kind: 'broken', error, partialText: streamedText };
  }
}

/**
 * The model step of a run: emits `model.step.started`, notes when the request left, and streams
 * the answer, each text delta as `model.text.delta`.
 */
export function modelStep(run: RunState, step: number, request: ModelRequest): Promise<StepOutcome> {
  run.emit({ type: 'model.step.started', step });
  run.lastRequestAt = run.now();
  const onDelta = (delta: string) => run.emit({ type: 'model.text.delta', step, delta });
  return runModelStep(run.options.model, request, run.signal, onDelta, { promptCacheKey: run.cacheKey });
}
