export { createCodexSessionEngine, type CodexSessionEngine, type CodexSessionEngineOptions } from './session-engine.js';
export { CODEX_ENGINE_PROMPT } from './instructions.js';
