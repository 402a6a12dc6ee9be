export { OpenAIModel, type OpenAIModelProfile } from './openai-adapter.js';
export { canReplay, REPLAY_MARKER_ID } from './native-compaction.js';
export {
  DEFAULT_OPENAI_BASE_URL,
  OPENAI_BASE_URL_VARIABLE,
  OPENAI_KEY_VARIABLE,
  resolveOpenAISettings,
  type OpenAIModelOptions,
} from './settings.js';
