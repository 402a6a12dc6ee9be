import type { z } from 'zod';
import type { contextEventModelSchema } from '../events/part-schemas.js';
import type {
  contextBudgetedEventSchema,
  contextEstimatorFlaggedEventSchema,
  contextLimitReachedEventSchema,
  contextLimitReasonSchema,
  contextUsageReconciledEventSchema,
  contextWarningEventSchema,
  contextWarningReasonSchema,
} from './context-event-schemas.js';

/* The budget events' types, derived from their schemas in `context-event-schemas.ts` (the documentation is there). */

/** Which model a context event is about. */
export type ContextEventModel = z.infer<typeof contextEventModelSchema>;
export type ContextBudgetedEvent = z.infer<typeof contextBudgetedEventSchema>;
export type ContextWarningReason = z.infer<typeof contextWarningReasonSchema>;
export type ContextWarningEvent = z.infer<typeof contextWarningEventSchema>;
export type ContextLimitReason = z.infer<typeof contextLimitReasonSchema>;
export type ContextLimitReachedEvent = z.infer<typeof contextLimitReachedEventSchema>;
export type ContextUsageReconciledEvent = z.infer<typeof contextUsageReconciledEventSchema>;
export type ContextEstimatorFlaggedEvent = z.infer<typeof contextEstimatorFlaggedEventSchema>;

export type ContextEvent =
  | ContextBudgetedEvent
  | ContextWarningEvent
  | ContextLimitReachedEvent
  | ContextUsageReconciledEvent
  | ContextEstimatorFlaggedEvent;
