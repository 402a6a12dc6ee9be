export { bareRequest, runAdapterConformance } from './run-adapter-conformance.js';
export { expectRequestsExtendEachOther, runTwoTurns } from './prefix-scenario.js';
export {
  allowAll,
  conformanceTuning,
  drain,
  INSTRUCTIONS,
  noteTool,
  occurrencesOfRequest,
  reconciledRun,
  runTurn,
  USER_REQUEST,
  type AdapterTuning,
  type ConformanceTarget,
} from './fixtures.js';
