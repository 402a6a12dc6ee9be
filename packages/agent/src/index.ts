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
