import { renderMcpListing } from '../mcp/mcp-listing.js';
import type { SlashCommand, SlashOutcome } from './slash-commands.js';

/** `/mcp`: the configured MCP servers, their state, tools, resources and prompts. */
export const mcpSlashCommand: SlashCommand = {
  name: 'mcp',
  summary: 'list MCP servers with their state, tools, resources (@server:uri) and prompts (/server:prompt)',
  async run(context): Promise<SlashOutcome> {
    context.print(await renderMcpListing(context.engine.mcp, context.style));
    return 'continue';
  },
};
