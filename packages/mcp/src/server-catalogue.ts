import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_TOOL_TIMEOUT_MS, type McpServerConfig } from './config.js';
import { DEFAULT_MCP_OUTPUT_CAP_CHARS, mcpResultText } from './content.js';
import { McpServerError, type McpServerConnection, type RequestLimits } from './server-connection.js';

/** One resource a server lists. Its texts are the server's own words: untrusted. */
export interface McpResourceEntry {
  readonly server: string;
  readonly uri: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** One prompt a server offers, run in the REPL as `/<server>:<prompt>`. */
export interface McpPromptEntry {
  readonly server: string;
  readonly name: string;
  readonly description?: string;
  readonly arguments: readonly { readonly name: string; readonly description?: string; readonly required: boolean }[];
}

/** A resource's or a prompt's content as the text a request carries, capped like a tool result. */
export interface McpContentText {
  readonly text: string;
  readonly truncated: boolean;
}

/** What the servers offer besides tools: resources to attach and prompts to run. */
export interface McpServerCatalogue {
  /** Resources of every working server; a server that fails to list them is named in `problems`. */
  listResources(signal?: AbortSignal): Promise<{ readonly resources: McpResourceEntry[]; readonly problems: string[] }>;
  /** Prompts of every working server; a server that fails to list them is named in `problems`. */
  listPrompts(signal?: AbortSignal): Promise<{ readonly prompts: McpPromptEntry[]; readonly problems: string[] }>;
  /** The content of one resource. Rejects with an `McpServerError` naming the server and the problem. */
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<McpContentText>;
  /** The messages of one prompt with `args`, as text. Rejects like `readResource`. */
  getPrompt(server: string, name: string, args: Record<string, string>, signal?: AbortSignal): Promise<McpContentText>;
}

function limitsOf(config: McpServerConfig | undefined, signal: AbortSignal | undefined): RequestLimits {
  return {
    signal: signal ?? new AbortController().signal,
    timeoutMs: config?.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
  };
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function resourceEntry(server: string, resource: Resource): McpResourceEntry {
  return {
    server,
    uri: resource.uri,
    name: resource.name,
    ...(resource.description === undefined ? {} : { description: resource.description }),
    ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }),
  };
}

function promptEntry(server: string, prompt: Prompt): McpPromptEntry {
  return {
    server,
    name: prompt.name,
    ...(prompt.description === undefined ? {} : { description: prompt.description }),
    arguments: (prompt.arguments ?? []).map((argument) => ({
      name: argument.name,
      ...(argument.description === undefined ? {} : { description: argument.description }),
      required: argument.required === true,
    })),
  };
}

/** A resource's contents as text: text parts after a header line, binary ones as a placeholder, capped. */
function resourceText(read: ReadResourceResult, uri: string): McpContentText {
  const asResult: CallToolResult = {
    content: read.contents.map((resource) => ({ type: 'resource' as const, resource })),
  };
  const text = mcpResultText(asResult, DEFAULT_MCP_OUTPUT_CAP_CHARS, `resource ${uri}`);
  return { text: text.text, truncated: text.truncated };
}

/** A prompt's messages as one text; each is marked with its role when the prompt has more than one role. */
function promptText(prompt: GetPromptResult, name: string): McpContentText {
  const roles = new Set(prompt.messages.map((message) => message.role));
  let truncated = false;
  const parts = prompt.messages.map((message) => {
    const text = mcpResultText({ content: [message.content] }, DEFAULT_MCP_OUTPUT_CAP_CHARS, `prompt ${name}`);
    truncated ||= text.truncated;
    return roles.size > 1 ? `[${message.role}] ${text.text}` : text.text;
  });
  return { text: parts.join('\n\n'), truncated };
}

/** Lists, reads and runs what `connections` offer besides tools. */
export function createServerCatalogue(
  connections: readonly McpServerConnection[],
  configOf: (name: string) => McpServerConfig | undefined,
): McpServerCatalogue {
  const working = () => connections.filter((connection) => connection.stoppedReason() === undefined);
  const connectionNamed = (server: string): McpServerConnection => {
    const connection = connections.find((candidate) => candidate.name === server);
    if (connection === undefined) {
      const known = connections.map((candidate) => candidate.name).join(', ') || 'none';
      const why = configOf(server) === undefined ? 'no MCP server has that name' : 'it did not start';
      throw new McpServerError({
        server,
        message: `MCP server "${server}" is not available: ${why} (running: ${known}). /mcp lists the servers and their state.`,
      });
    }
    const stopped = connection.stoppedReason();
    if (stopped !== undefined) throw new McpServerError({ server, message: stopped });
    return connection;
  };
  const each = async <T>(fetch: (connection: McpServerConnection) => Promise<T[]>) => {
    const problems: string[] = [];
    const found = await Promise.all(
      working().map((connection) =>
        fetch(connection).catch((error: unknown) => {
          problems.push(`MCP server "${connection.name}": ${reasonOf(error)}`);
          return [] as T[];
        }),
      ),
    );
    return { items: found.flat(), problems };
  };
  const failed = (server: string, what: string, error: unknown): never => {
    if (McpServerError.isInstance(error)) throw error;
    throw new McpServerError({
      server,
      message: `MCP server "${server}" could not ${what}: ${reasonOf(error)}`,
      cause: error,
    });
  };

  return {
    async listResources(signal) {
      const { items, problems } = await each(async (connection) =>
        (await connection.listResources(limitsOf(configOf(connection.name), signal))).map((resource) =>
          resourceEntry(connection.name, resource),
        ),
      );
      return { resources: items, problems };
    },
    async listPrompts(signal) {
      const { items, problems } = await each(async (connection) =>
        (await connection.listPrompts(limitsOf(configOf(connection.name), signal))).map((prompt) =>
          promptEntry(connection.name, prompt),
        ),
      );
      return { prompts: items, problems };
    },
    async readResource(server, uri, signal) {
      const connection = connectionNamed(server);
      try {
        return resourceText(await connection.readResource(uri, limitsOf(configOf(server), signal)), uri);
      } catch (error) {
        return failed(server, `read resource ${uri}`, error);
      }
    },
    async getPrompt(server, name, args, signal) {
      const connection = connectionNamed(server);
      try {
        return promptText(await connection.getPrompt(name, args, limitsOf(configOf(server), signal)), name);
      } catch (error) {
        return failed(server, `run prompt ${name}`, error);
      }
    },
  };
}
