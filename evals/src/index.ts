export { expandFixture, fillerText, type ExpandedFixture, type ExpandedTurn } from './fixture/expand.js';
export {
  builtInFixturesDirectory,
  loadFixtureDirectory,
  loadFixtureFile,
  loadSuite,
  parseFixture,
  SUITE_NAMES,
  type LoadedFixture,
  type SuiteName,
} from './fixture/load.js';
export * from './fixture/schema.js';
export {
  blockingFailures,
  DEFAULT_GATES,
  evaluateGates,
  gatesConfigSchema,
  loadGatesConfig,
  type GateResult,
  type GateStatus,
  type GatesConfig,
} from './gates/gates.js';
export { computeMetrics, type FixtureModeMetrics } from './metrics/metrics.js';
export { MODE_IDS, MODE_RUNNERS, selectModes } from './modes/registry.js';
export type {
  CompactionRecord,
  ModeContext,
  ModeId,
  ModeRunner,
  ModeSession,
  ModeSessionEnd,
  ModeTurnResult,
} from './modes/types.js';
export { parseAgentNames, type AgentHabits, type AgentName } from './policy/habits.js';
export { SUMMARY_REQUEST } from './policy/summaries.js';
export { PolicyModel, type PolicyCall, type PolicyModelOptions } from './policy/policy-model.js';
export { NO_PAINT, type Paint } from './report/format.js';
export { renderHtmlReport } from './report/html-report.js';
export { renderMarkdownReport } from './report/markdown-report.js';
export { renderProgress } from './report/progress.js';
export { renderTextReport } from './report/text-report.js';
export { writeReportDirectory, type WrittenReport } from './report/write-report.js';
export { runFixture, type FixtureRun, type RunFixtureOptions } from './run/run-fixture.js';
export {
  reportPassed,
  runEval,
  type EvalProgress,
  type EvalReport,
  type EvalRunError,
  type RunEvalOptions,
} from './run/run-eval.js';
export { loadEvalPrices, type EvalPriceSheet } from './pricing/eval-prices.js';
