import type { ImportFacts } from './import-facts.js';
import type { TokenCounts } from './import-state.js';
import {
  agentMessageEventSchema,
  errorEventSchema,
  execCommandEndEventSchema,
  itemCompletedEventSchema,
  patchApplyEndEventSchema,
  tokenCountEventSchema,
  turnAbortedEventSchema,
  userMessageEventSchema,
} from './rollout-schema.js';
import { isHarnessInjected } from './harness-context.js';
import type { ToolCallTracker } from './tool-calls.js';
import { firstLine } from './tool-output.js';

/** What an `event_msg` line may change in the reducer. */
export interface RolloutEventTarget {
  readonly facts: ImportFacts;
  readonly calls: ToolCallTracker;
  userMessage(text: string, seq: number): void;
  assistantText(text: string): void;
  closeTurn(seq: number): void;
  harnessMessage(): void;
  mark(generation: 'current' | 'legacy'): void;
  malformed(): void;
  unknown(type: string): void;
}

const ignoredEventTypes = new Set([
  'task_started',
  'thread_settings_applied',
  'agent_reasoning',
  'agent_reasoning_raw_content',
  'agent_reasoning_section_break',
  'context_compacted',
  'user_message_edited',
]);

/**
 * Applies one `event_msg` line: older files' user and agent messages, token counts, exit codes and
 * patch results reported ahead of a tool output, turn ends and aborts, errors.
 */
export function applyEvent(payload: unknown, seq: number, target: RolloutEventTarget): void {
  const eventType = typeof payload === 'object' && payload !== null ? (payload as { type?: unknown }).type : undefined;
  switch (eventType) {
    case 'user_message': {
      const event = userMessageEventSchema.safeParse(payload);
      if (!event.success) return target.malformed();
      target.mark('legacy');
      if (isHarnessInjected(event.data.message)) target.harnessMessage();
      else target.userMessage(event.data.message, seq);
      return;
    }
    case 'agent_message': {
      const event = agentMessageEventSchema.safeParse(payload);
      if (!event.success) return target.malformed();
      target.mark('legacy');
      target.assistantText(event.data.message);
      return;
    }
    case 'token_count': {
      const event = tokenCountEventSchema.safeParse(payload);
      if (!event.success) return target.malformed();
      const info = event.data.info;
      if (info === null || info === undefined) return;
      target.facts.addTokenUsage({
        seq,
        total: counts(info.total_token_usage),
        last: info.last_token_usage === undefined ? null : counts(info.last_token_usage),
        modelContextWindow: info.model_context_window ?? null,
      });
      return;
    }
    case 'item_completed': {
      const event = itemCompletedEventSchema.safeParse(payload);
      if (!event.success) return target.malformed();
      target.mark('current');
      const item = event.data.item;
      if (item.id !== undefined)
        target.calls.report(item.id, {
          exitCode: item.exit_code ?? null,
          ...(item.status === undefined ? {} : { status: item.status }),
        });
      return;
    }
    case 'exec_command_end': {
      const event = execCommandEndEventSchema.safeParse(payload);
      if (!event.success) return target.malformed();
      target.calls.report(event.data.call_id, { exitCode: event.data.exit_code });
      return;
    }
    case 'patch_apply_end': {
      const event = patchApplyEndEventSchema.safeParse(payload);
      if (!event.success) return target.malformed();
      target.calls.report(event.data.call_id, { status: event.data.success ? 'completed' : 'failed' });
      return;
    }
    case 'task_complete':
      target.closeTurn(seq);
      return;
    case 'turn_aborted': {
      const event = turnAbortedEventSchema.safeParse(payload);
      target.closeTurn(seq);
      target.facts.addFailure({
        seq,
        kind: 'turn',
        what: 'the turn',
        why: `aborted (${event.success ? (event.data.reason ?? 'no reason') : 'no reason'})`,
      });
      return;
    }
    case 'error': {
      const event = errorEventSchema.safeParse(payload);
      if (!event.success) return target.malformed();
      target.facts.addFailure({ seq, kind: 'error', what: 'Codex', why: firstLine(event.data.message) });
      return;
    }
    default:
      if (typeof eventType === 'string' && ignoredEventTypes.has(eventType)) return;
      target.unknown(`event_msg.${typeof eventType === 'string' ? eventType : 'untyped'}`);
  }
}

function counts(usage: {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
  total_tokens: number;
}): TokenCounts {
  return {
    inputTokens: usage.input_tokens,
    cachedInputTokens: usage.cached_input_tokens,
    outputTokens: usage.output_tokens,
    reasoningOutputTokens: usage.reasoning_output_tokens,
    totalTokens: usage.total_tokens,
  };
}
