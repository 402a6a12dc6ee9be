export { ConfigError, type ConfigIssue } from './config-error.js';
export {
  CONTEXT_ENVIRONMENT_VARIABLES,
  readEnvironmentLayer,
  type Environment,
  type EnvironmentLayer,
} from './environment.js';
export { configJsonSchema, configJsonSchemaText } from './json-schema.js';
export {
  checkCombinations,
  loadConfig,
  MAX_CONFIG_FILE_BYTES,
  projectConfigPath,
  readConfigFile,
  readConfigText,
  userConfigPath,
  type LoadConfigOptions,
  type LoadedConfig,
} from './load-config.js';
export {
  DEFAULT_APPROVAL_PROFILE,
  DEFAULT_CONTEXT_MODE,
  DEFAULT_SANDBOX_CONFIG,
  mergeLayers,
  type CompactionConfig,
  type ConfigSource,
  type ContextToolsConfig,
  type ForgeConfig,
  type Layer,
  type MergedConfig,
  type SandboxConfig,
  type TraceRetention,
  type ValueProvenance,
} from './merge.js';
export { lineAndColumn, parseJsonText } from './parse-json.js';
export {
  APPROVAL_PROFILES,
  compatibleModelSchema,
  COMPATIBLE_TOKENIZER_FAMILIES,
  CONFIG_SCHEMA_VERSION,
  configFileSchema,
  contextSectionSchema,
  flagLayerSchema,
  priceEntrySchema,
  SANDBOX_MODES,
  type ApprovalProfileName,
  type SandboxModeName,
  type CompactionStrategyName,
  type CompatibleModelEntry,
  type ConfigFile,
  type ConfigLayer,
  type PriceEntry,
} from './schema.js';
export { parseConfigText } from './validate.js';
