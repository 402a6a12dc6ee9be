import type { McpPromptEntry, McpServers } from '@forge/mcp';
import type { Style } from '../output/style.js';
import { terminalText } from '@forge/core/terminal';

/** Items of one kind shown per server before "and N more". */
const SHOWN = 20;

function listed(items: readonly string[]): string {
  if (items.length === 0) return '(none)';
  const shown = items.slice(0, SHOWN).join(', ');
  return items.length > SHOWN ? `${shown} and ${items.length - SHOWN} more` : shown;
}

function promptUsage(prompt: McpPromptEntry): string {
  const args = prompt.arguments.map((argument) => (argument.required ? argument.name : `[${argument.name}]`));
  return terminalText([`/${prompt.server}:${prompt.name}`, ...args].join(' '));
}

/**
 * What `/mcp` prints: each configured server with its state and transport, its tools as the model
 * sees them, its resources (to attach with `@server:uri`) and its prompts (to run as
 * `/server:prompt`). Texts the servers supplied are printed with control characters replaced.
 */
export async function renderMcpListing(
  mcp: McpServers | undefined,
  style: Style,
  signal?: AbortSignal,
): Promise<string> {
  if (mcp === undefined || mcp.servers.length === 0)
    return 'No MCP servers are configured. Add them to "mcpServers" in your user configuration (see docs/configuration.md).\n';
  const [{ resources, problems: resourceProblems }, { prompts, problems: promptProblems }] = await Promise.all([
    mcp.listResources(signal),
    mcp.listPrompts(signal),
  ]);
  const lines = [style.bold('MCP servers')];
  for (const server of mcp.servers) {
    if (server.status === 'failed') {
      lines.push(
        `  ${style.bold(server.name)}  ${style.red('unavailable')}: ${terminalText(server.error ?? 'failed')}`,
      );
      continue;
    }
    const tokens =
      server.schemaTokensHint === undefined
        ? ''
        : ` · ~${server.schemaTokensHint.toLocaleString('en-US')} schema tokens`;
    lines.push(
      `  ${style.bold(server.name)}  ${style.green('ready')} · ${server.transport ?? 'stdio'} · ${server.toolNames.length} tool${server.toolNames.length === 1 ? '' : 's'}${tokens}`,
      `    tools: ${listed(server.toolNames.map(terminalText))}`,
      `    resources: ${listed(resources.filter((entry) => entry.server === server.name).map((entry) => terminalText(`@${entry.server}:${entry.uri}`)))}`,
      `    prompts: ${listed(prompts.filter((entry) => entry.server === server.name).map(promptUsage))}`,
    );
  }
  for (const problem of [...resourceProblems, ...promptProblems])
    lines.push(style.yellow(`  ${terminalText(problem)}`));
  lines.push(
    style.dim('Attach a resource with @server:uri in a request; run a prompt with /server:prompt [arguments].'),
  );
  return `${lines.join('\n')}\n`;
}
