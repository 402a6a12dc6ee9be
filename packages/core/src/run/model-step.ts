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
      /** Set when the provider's usage was impossible and was clamped: what was wrong. */
      readonly usageProblem?: string;
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
        case 'finish': {
          const checked = clampUsage(part.usage, model.capabilities.contextWindowTokens);
          return {
            kind: 'finished',
            message: { role: 'assistant', content: parts },
            finishReason: part.finishReason,
            usage: checked.usage,
            ...(checked.problem === undefined ? {} : { usageProblem: checked.problem }),
          };
        }
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

/** Appended to the text of an answer whose stream broke, so a resumed session (and the model) knows it is incomplete. */
export const CUT_ANSWER_NOTE =
  '\n\n[Forge: this answer was cut off here: the stream ended before the model finished it]';

/**
 * `usage` with parts that cannot exceed their whole clamped to it: cache reads and writes to the
 * input, reasoning to the output (a provider or gateway reporting `cached 10,000,000` of 100); and
 * the input, which no request can make larger than the model's window, clamped to the window (a
 * report of 1e15 input tokens is not priced at a billion dollars). A count that is negative or not
 * a number is taken as not reported.
 */
export function clampUsage(
  reported: Usage,
  contextWindowTokens?: number,
): { readonly usage: Usage; readonly problem?: string } {
  const problems: string[] = [];
  const count = (value: number | undefined, what: string): number | undefined => {
    if (value === undefined || (Number.isFinite(value) && value >= 0)) return value;
    problems.push(`${String(value)} ${what}`);
    return undefined;
  };
  const inputTokens = count(reported.inputTokens, 'input tokens');
  const windowed =
    inputTokens !== undefined && contextWindowTokens !== undefined && inputTokens > contextWindowTokens
      ? contextWindowTokens
      : inputTokens;
  if (windowed !== inputTokens && inputTokens !== undefined)
    problems.push(
      `${inputTokens.toLocaleString('en-US')} input tokens for a ${contextWindowTokens?.toLocaleString('en-US')}-token window`,
    );
  const usage: Usage = {
    ...reported,
    inputTokens: windowed,
    outputTokens: count(reported.outputTokens, 'output tokens'),
    cacheReadTokens: count(reported.cacheReadTokens, 'cached input tokens'),
    cacheWriteTokens: count(reported.cacheWriteTokens, 'cache-write tokens'),
    reasoningTokens: count(reported.reasoningTokens, 'reasoning tokens'),
  };
  const within = (part: number | undefined, whole: number | undefined, what: string): number | undefined => {
    if (part === undefined || whole === undefined || part <= whole) return part;
    problems.push(`${part.toLocaleString('en-US')} ${what} of ${whole.toLocaleString('en-US')}`);
    return whole;
  };
  const clamped: Usage = {
    ...usage,
    cacheReadTokens: within(usage.cacheReadTokens, usage.inputTokens, 'cached input tokens'),
    cacheWriteTokens: within(usage.cacheWriteTokens, usage.inputTokens, 'cache-write tokens'),
    reasoningTokens: within(usage.reasoningTokens, usage.outputTokens, 'reasoning tokens'),
  };
  if (problems.length === 0) return { usage: reported };
  return {
    usage: clamped,
    problem: `The provider reported ${problems.join(' and ')}, which cannot be; the usage was clamped to what can be.`,
  };
}
