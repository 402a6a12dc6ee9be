/* `@forge/core/budget`: calibration of estimates, the preflight and the `forge context` report's figures (the CLI renders them). The policy, the estimators and capability resolution are on the root. */
export { computeContextBudget } from './budget.js';
export {
  implausibleSampleReason,
  overcountCorrection,
  scaleEstimate,
  summarizeCalibration,
  undercountCorrection,
  type CalibrationSample,
  type CalibrationSummary,
} from './calibration.js';
export { formatMessageRange, formatTokens } from './messages.js';
export { measureContext, type CheckpointProvenance, type ContextReport, type SessionCost } from './report.js';
