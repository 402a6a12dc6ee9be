import type { z } from 'zod';
import type { errorSummarySchema } from './part-schemas.js';
import type { forgeEventSchema, runStatusSchema } from './event-schemas.js';

/* The types of core's events, derived from their schemas in `event-schemas.ts` (the documentation is there). */

export const EVENT_SCHEMA_VERSION = 1 as const;

export type RunStatus = z.infer<typeof runStatusSchema>;

export type ErrorSummary = z.infer<typeof errorSummarySchema>;

/** Everything the agent loop reports. Names are noun-then-verb; payloads hold metadata and hashes, not transcripts. */
export type ForgeEvent = z.infer<typeof forgeEventSchema>;

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
