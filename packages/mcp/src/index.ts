export {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  mcpServerConfigListSchema,
  mcpServerConfigSchema,
  mcpServerEnvValues,
  type McpServerConfig,
} from './config.js';
export { DEFAULT_MCP_OUTPUT_CAP_CHARS, mcpResultText, type McpResultText } from './content.js';
export { isMcpTool, type McpTool } from './mcp-tool.js';
export {
  BUILT_IN_TOOLS_GROUP,
  roughSchemaTokens,
  toolSchemaCostByServer,
  type CountSchemaTokens,
  type ToolSchemaCost,
} from './schema-cost.js';
export { McpServerError } from './server-connection.js';
export {
  startMcpServers,
  type McpServers,
  type McpServerStatus,
  type StartMcpServersOptions,
} from './start-servers.js';
export { assignToolNames, TOOL_NAME_PATTERN, type ToolNameRequest } from './tool-names.js';
