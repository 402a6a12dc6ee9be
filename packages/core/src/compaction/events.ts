import type { z } from 'zod';
import type {
  compactionStrategyNameSchema,
  compactionTriggerSchema,
  compactorDisclosureSchema,
  contextCheckpointCoverageEventSchema,
  contextCompactionCompletedEventSchema,
  contextCompactionFailedEventSchema,
  contextCompactionSkippedEventSchema,
  contextCompactionStartedEventSchema,
  transcriptSpanSchema,
} from './event-schemas.js';

export { CHECKPOINT_COVERAGE_EVENT_VERSION } from './event-schemas.js';

/* The compaction events' types, derived from their schemas in `event-schemas.ts` (the documentation is there). */

export type CompactionTrigger = z.infer<typeof compactionTriggerSchema>;
export type CompactionStrategyName = z.infer<typeof compactionStrategyNameSchema>;
export type TranscriptSpan = z.infer<typeof transcriptSpanSchema>;
export type CompactorDisclosure = z.infer<typeof compactorDisclosureSchema>;
export type ContextCompactionStartedEvent = z.infer<typeof contextCompactionStartedEventSchema>;
export type ContextCompactionCompletedEvent = z.infer<typeof contextCompactionCompletedEventSchema>;
export type ContextCompactionFailedEvent = z.infer<typeof contextCompactionFailedEventSchema>;
export type ContextCompactionSkippedEvent = z.infer<typeof contextCompactionSkippedEventSchema>;
export type ContextCheckpointCoverageEvent = z.infer<typeof contextCheckpointCoverageEventSchema>;

/** Most items a coverage event lists; `missingCount` has them all. */
export const COVERAGE_EVENT_MAX_ITEMS = 32;

/** Events of compaction: started, then completed or failed; or skipped with the reason; and the coverage check's repairs and refusals. */
export type CompactionEvent =
  | ContextCompactionStartedEvent
  | ContextCompactionCompletedEvent
  | ContextCompactionFailedEvent
  | ContextCompactionSkippedEvent
  | ContextCheckpointCoverageEvent;
