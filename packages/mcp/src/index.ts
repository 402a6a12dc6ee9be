export {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  isRemoteServerConfig,
  mcpServerConfigListSchema,
  mcpServerConfigSchema,
  mcpServerEnvValues,
  mcpServerSecretValues,
  resolveServerHeaders,
  type HeaderFromEnvironment,
  type McpRemoteServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
} from './config.js';
export { DEFAULT_MCP_OUTPUT_CAP_CHARS, mcpResultText, type McpResultText } from './content.js';
export { McpCredentialFiles, type StoredCredentials } from './credential-files.js';
export {
  elicitationFields,
  parseFieldAnswer,
  withSchemaDefaults,
  type ElicitationAnswer,
  type ElicitationField,
  type ElicitationHandler,
  type ElicitationRequest,
} from './elicitation.js';
export { isMcpTool, type McpTool } from './mcp-tool.js';
export { DEFAULT_LOGIN_TIMEOUT_MS, loginToMcpServer, McpLoginError, type LoginOptions } from './oauth-login.js';
export {
  connectionAuthProvider,
  createOAuthProvider,
  McpLoginRequiredError,
  REFRESH_BEFORE_EXPIRY_MS,
  type ForgeOAuthProvider,
} from './oauth-provider.js';
export {
  BUILT_IN_TOOLS_GROUP,
  roughSchemaTokens,
  toolSchemaCostByServer,
  type CountSchemaTokens,
  type ToolSchemaCost,
} from './schema-cost.js';
export type { McpContentText, McpPromptEntry, McpResourceEntry, McpServerCatalogue } from './server-catalogue.js';
export { McpServerError } from './server-connection.js';
export {
  startMcpServers,
  type McpServers,
  type McpServerStatus,
  type StartMcpServersOptions,
} from './start-servers.js';
export { assignToolNames, TOOL_NAME_PATTERN, type ToolNameRequest } from './tool-names.js';
