export { CompatibleModel, type CompatibleModelProfile } from './compatible-adapter.js';
export { compatibleModelConfigSchema, resolveCompatibleSettings, type CompatibleModelConfig, type CompatibleModelOptions } from './settings.js';
