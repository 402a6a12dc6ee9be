export {
  anyEventEnvelopeSchema,
  envelopeShape,
  modelStepCompletedEventSchema,
  runStartedEventSchema,
  toolCallCompletedEventSchema,
  toolCallStartedEventSchema,
} from './event-schemas.js';
export {
  contextEstimatorFlaggedEventSchema,
  contextLimitReachedEventSchema,
  contextUsageReconciledEventSchema,
} from '../budget/context-event-schemas.js';
export {
  contextCheckpointCoverageEventSchema,
  contextCompactionCompletedEventSchema,
} from '../compaction/event-schemas.js';
export { costBreakdownSchema, priceSheetSchema } from './part-schemas.js';
