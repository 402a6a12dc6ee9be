import { terminalLine } from '@forge/core/terminal';
import type { McpServers } from '@forge/mcp';
import { UsageError } from '../cli-error.js';

/** An `@server:uri` in a request: the resource of a configured MCP server to attach. */
export interface ResourceMention {
  readonly server: string;
  readonly uri: string;
}

/** A `/server:prompt args…` request: a server's prompt to run as the request. */
export interface PromptCommand {
  readonly server: string;
  readonly prompt: string;
  /** `name=value` arguments, and bare words in the order the prompt declares its arguments. */
  readonly named: Readonly<Record<string, string>>;
  readonly positional: readonly string[];
}

const SERVER = '[A-Za-z0-9_-]{1,48}';
const MENTION = new RegExp(`(?:^|(?<=\\s))@(${SERVER}):(\\S+)`, 'g');
/** Punctuation that ends a sentence rather than a URI. */
const TRAILING = /[.,;:!?)\]}'"]+$/;

/** Every `@server:uri` of `text` naming one of `servers`, in order, each once. */
export function findResourceMentions(text: string, servers: ReadonlySet<string>): ResourceMention[] {
  const found: ResourceMention[] = [];
  for (const match of text.matchAll(MENTION)) {
    const server = match[1] ?? '';
    const uri = (match[2] ?? '').replace(TRAILING, '');
    if (!servers.has(server) || uri === '') continue;
    if (!found.some((known) => known.server === server && known.uri === uri)) found.push({ server, uri });
  }
  return found;
}

/** Splits arguments on spaces, keeping "double quoted" or 'single quoted' values whole. */
function words(text: string): string[] {
  return [...text.matchAll(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g)].map((match) => match[0].replace(/(["'])(.*?)\1/g, '$2'));
}

/** `/server:prompt args…` when `text` is one and `server` is among `servers`; undefined otherwise. */
export function parsePromptCommand(text: string, servers: ReadonlySet<string>): PromptCommand | undefined {
  const match = new RegExp(`^\\/(${SERVER}):(\\S+)(?:\\s+([\\s\\S]*))?$`).exec(text.trim());
  if (match === null || !servers.has(match[1] ?? '')) return undefined;
  const named: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of words(match[3] ?? '')) {
    const pair = /^([A-Za-z_][\w-]*)=([\s\S]*)$/.exec(word);
    if (pair === null) positional.push(word);
    else named[pair[1] ?? ''] = pair[2] ?? '';
  }
  return { server: match[1] ?? '', prompt: match[2] ?? '', named, positional };
}

/** The names of the servers whose prompts and resources a request may use. */
export function mcpServerNames(mcp: McpServers | undefined): ReadonlySet<string> {
  return new Set(mcp?.servers.map((server) => server.name) ?? []);
}

async function promptRequest(command: PromptCommand, mcp: McpServers, signal?: AbortSignal): Promise<string> {
  const { prompts } = await mcp.listPrompts(signal);
  const own = prompts.filter((prompt) => prompt.server === command.server);
  const prompt = own.find((candidate) => candidate.name === command.prompt);
  if (prompt === undefined) {
    const offered = own.map((candidate) => `/${command.server}:${candidate.name}`).join(', ') || 'none';
    throw new UsageError(`MCP server "${command.server}" has no prompt "${command.prompt}" (it offers: ${offered})`);
  }
  const args: Record<string, string> = { ...command.named };
  const open = prompt.arguments.filter((argument) => args[argument.name] === undefined);
  command.positional.forEach((value, index) => {
    const argument = open[index];
    if (argument !== undefined) args[argument.name] = value;
  });
  const missing = prompt.arguments.filter((argument) => argument.required && args[argument.name] === undefined);
  if (missing.length > 0) {
    const usage = prompt.arguments.map((argument) => `${argument.name}=…`).join(' ');
    throw new UsageError(
      `/${command.server}:${command.prompt} needs ${missing.map((argument) => argument.name).join(', ')}: /${command.server}:${command.prompt} ${usage}`,
    );
  }
  return (await mcp.getPrompt(command.server, command.prompt, args, signal)).text;
}

/** What a request became after its MCP references were resolved. */
export interface ExpandedRequest {
  readonly request: string;
  /** The resources attached, for a note to the user. */
  readonly attached: readonly ResourceMention[];
  /** Set when the request was a server's prompt. */
  readonly prompt?: { readonly server: string; readonly name: string };
}

/**
 * Resolves a request's MCP references: a `/server:prompt` request becomes the prompt's text, and
 * the content of every `@server:uri` is attached after the request, marked with its server and
 * URI and redacted with `redact` (the session's redactor) before the model or the session sees
 * it. A request without references comes back unchanged. A reference that cannot be resolved is
 * a {@link UsageError} naming it and what to check.
 */
export async function expandMcpReferences(
  text: string,
  options: {
    readonly mcp: McpServers | undefined;
    readonly redact: (text: string) => string;
    readonly signal?: AbortSignal;
  },
): Promise<ExpandedRequest> {
  const { mcp } = options;
  const servers = mcpServerNames(mcp);
  if (mcp === undefined || servers.size === 0) return { request: text, attached: [] };
  const command = parsePromptCommand(text, servers);
  const request = command === undefined ? text : options.redact(await promptRequest(command, mcp, options.signal));
  const mentions = findResourceMentions(request, servers);
  const blocks: string[] = [];
  for (const mention of mentions) {
    const content = await mcp.readResource(mention.server, mention.uri, options.signal).catch((error: unknown) => {
      throw new UsageError(
        `@${mention.server}:${mention.uri} could not be attached: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    blocks.push(
      `<mcp-resource server="${mention.server}" uri="${mention.uri}">\n${options.redact(content.text)}\n</mcp-resource>`,
    );
  }
  return {
    request: blocks.length === 0 ? request : `${request}\n\n${blocks.join('\n\n')}`,
    attached: mentions,
    ...(command === undefined ? {} : { prompt: { server: command.server, name: command.prompt } }),
  };
}

/**
 * One line per resolved reference, for the user: which prompt ran, which resources were attached.
 * A mention can come from a server's prompt text, so each line is made safe for a terminal here.
 */
export function describeExpansion(expanded: ExpandedRequest): string[] {
  return [
    ...(expanded.prompt === undefined
      ? []
      : [`running prompt ${expanded.prompt.name} of MCP server "${expanded.prompt.server}"`]),
    ...expanded.attached.map((mention) => `attached @${mention.server}:${mention.uri}`),
  ].map(terminalLine);
}
