export { CompatibleModel, type CompatibleModelProfile } from './compatible-adapter.js';
export { compatibleModelConfigSchema, resolveCompatibleSettings, type CompatibleModelConfig, type CompatibleModelOptions } from './settings.js';
export { compatibleCapabilities } from './capabilities.js';
export { createCompatibleModel } from './create-compatible-model.js';
