export {
  agentSurface,
  contextToolOffer,
  sessionSurface,
  systemPromptFor,
  type AgentSurface,
  type ContextToolSettings,
  type SessionSize,
  type SessionSurfaceOptions,
} from './agent-surface.js';
export {
  assembleAgent,
  type Agent,
  type AssembleAgentOptions,
  type ExtraTools,
  type StoredTurnInput,
} from './assemble-agent.js';
export { createInstructionsLoader, type InstructionsLoaderOptions } from './instructions-loader.js';
export { ModelChoiceError } from './models/model-choice-error.js';
export {
  DEFAULT_MODEL,
  defaultModelNotice,
  parseModelIdentifier,
  resolveModelId,
  TEST_MODEL_SCRIPT_VARIABLE,
  type ModelIdentifier,
  type ModelProvider,
  type ModelProviderContext,
} from './models/provider-registry.js';
export { measuringOnly } from './models/adapter-decorators.js';
export {
  CalibrationHub,
  CONSERVATIVE_COUNTER,
  type CalibrationIdentity,
  type CalibrationView,
} from './models/calibration-hub.js';
export {
  calibrationIdentity,
  modelCatalogue,
  type CatalogueEntry,
  type Counting,
  type SourcedFigure,
} from './models/model-catalogue.js';
export { createDemoModel, decideDemoStep, DEMO_FIRST_LINE, pickFileToRead } from './models/scripted-demo.js';
export { createScriptedFileModel, loadScriptedFileModel } from './models/scripted-file.js';
