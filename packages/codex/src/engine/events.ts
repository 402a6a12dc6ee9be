import type { EventEnvelope, ForgeEvent } from '@forge/core';
import type { z } from 'zod';
import type {
  codexCompactionRecordSchema,
  codexOnlyEventSchema,
  codexThreadFallbackReasonSchema,
  codexThreadSelectionSchema,
  codexTokenBreakdownSchema,
  codexTokenUsageRecordSchema,
} from './event-schemas.js';

/* The Codex engine's own events, derived from their schemas in `event-schemas.ts` (the documentation is there). */

export type CodexTokenBreakdown = z.infer<typeof codexTokenBreakdownSchema>;
export type CodexTokenUsageRecord = z.infer<typeof codexTokenUsageRecordSchema>;
export type CodexCompactionRecord = z.infer<typeof codexCompactionRecordSchema>;
export type CodexThreadSelection = z.infer<typeof codexThreadSelectionSchema>;
export type CodexThreadFallbackReason = z.infer<typeof codexThreadFallbackReasonSchema>;

/** Events only the Codex engine emits, next to the core events it shares with native runs. */
export type CodexOnlyEvent = z.infer<typeof codexOnlyEventSchema>;

export type CodexEngineEvent = ForgeEvent | CodexOnlyEvent;

/** The core envelope, carrying a Codex engine event. */
export type CodexEventEnvelope = EventEnvelope<CodexEngineEvent>;

export type CodexEventListener = (envelope: CodexEventEnvelope) => void;
