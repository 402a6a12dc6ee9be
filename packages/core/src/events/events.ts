import type { ContextEvent } from '../budget/context-events.js';
import type { CompactionEvent } from '../compaction/events.js';
import type { FinishReason, Usage } from '../model/adapter.js';
import type { PriceSheet } from '../pricing/price-sheet.js';
import type { CostBreakdown } from '../pricing/price-usage.js';
import type { RunCostSummary } from '../run/run-cost.js';

export const EVENT_SCHEMA_VERSION = 1 as const;

export type RunStatus = 'completed' | 'step_limit' | 'cancelled' | 'limit_reached' | 'failed';

export interface ErrorSummary {
  readonly code: string;
  readonly message: string;
  readonly isRetryable: boolean;
}

/** Everything the agent loop reports. Names are noun-then-verb; payloads hold metadata and hashes, not transcripts. */
export type ForgeEvent =
  | {
      readonly type: 'run.started';
      readonly model: { readonly provider: string; readonly modelId: string };
      readonly instructions: {
        readonly hash: string;
        readonly sources: readonly { readonly origin: string; readonly sha256: string }[];
      };
      readonly tools: readonly string[];
      readonly maxSteps: number;
      readonly historyMessages: number;
      /** The price sheet steps are priced with; absent for a model without prices. */
      readonly prices?: PriceSheet;
    }
  | { readonly type: 'model.step.started'; readonly step: number }
  | { readonly type: 'model.text.delta'; readonly step: number; readonly delta: string }
  | {
      readonly type: 'model.step.completed';
      readonly step: number;
      readonly finishReason: FinishReason;
      readonly usage: Usage;
      readonly toolCalls: number;
      /** The step's cost under `run.started`'s price sheet, when the model is priced and usage complete. */
      readonly cost?: CostBreakdown;
    }
  | { readonly type: 'model.step.failed'; readonly step: number; readonly error: ErrorSummary }
  | {
      readonly type: 'tool.call.started';
      readonly step: number;
      readonly toolCallId: string;
      readonly toolName: string;
      readonly summary: string;
    }
  | {
      readonly type: 'tool.call.completed';
      readonly step: number;
      readonly toolCallId: string;
      readonly toolName: string;
      readonly outcome: 'ok' | 'error' | 'denied' | 'cancelled';
      readonly durationMs: number;
      /**
       * How the call ended, in one line for people: the tool's own summary (`read src/a.ts (120 lines)`),
       * or why it was refused, failed, denied or cancelled.
       */
      readonly resultSummary?: string;
    }
  | (RunCostSummary & {
      readonly type: 'run.completed';
      readonly status: Exclude<RunStatus, 'failed'>;
      readonly steps: number;
      readonly usage: Usage;
      readonly durationMs: number;
    })
  | (RunCostSummary & {
      readonly type: 'run.failed';
      readonly status: 'failed';
      readonly steps: number;
      readonly usage: Usage;
      readonly durationMs: number;
      readonly error: ErrorSummary;
    })
  /** Budget events: `context.budgeted`, `context.warning`, `context.limit_reached`, `context.usage.reconciled`, `context.estimator.flagged`. */
  | ContextEvent
  /** Compaction events: `context.compaction.started`, `.completed`, `.failed`, `.skipped`. */
  | CompactionEvent;

export type ForgeEventType = ForgeEvent['type'];

/** The one envelope every event travels in: live subscribers, `--json` output and trace files alike. */
export interface EventEnvelope<E extends { readonly type: string } = ForgeEvent> {
  readonly schemaVersion: typeof EVENT_SCHEMA_VERSION;
  readonly runId: string;
  readonly sessionId?: string;
  /** 0-based, strictly increasing within a run. */
  readonly sequence: number;
  /** ISO-8601 time the event was emitted. */
  readonly timestamp: string;
  readonly event: E;
}

export type EventListener = (envelope: EventEnvelope) => void;
