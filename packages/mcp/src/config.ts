import { z } from 'zod';

/** Server names become the prefix of tool names, so they are short and safe in any provider's tool-name pattern. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,48}$/;
const ENVIRONMENT_VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Header names whose values are credentials: they must come from an environment variable, never the file. */
const SECRET_HEADER = /authorization|cookie|token|secret|key|password|credential|session|auth/i;

/** Milliseconds a server may take to start and list its tools unless configured otherwise. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;

/** Milliseconds one tool call may take unless configured otherwise. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** A header value read from an environment variable when the server is connected, with an optional text before it. */
const headerFromEnvironmentSchema = z
  .object({
    env: z.string().regex(ENVIRONMENT_VARIABLE, 'give the name of an environment variable, e.g. "GITHUB_TOKEN"'),
    prefix: z.string().optional(),
  })
  .strict();

export type HeaderFromEnvironment = z.infer<typeof headerFromEnvironmentSchema>;

const oauthSchema = z
  .object({
    clientId: z.string().min(1).optional(),
    scopes: z.array(z.string().min(1)).optional(),
    redirectPort: z.number().int().min(1024).max(65_535).optional(),
  })
  .strict();

const STDIO_ONLY = ['command', 'args', 'env', 'cwd'] as const;
const REMOTE_ONLY = ['url', 'headers', 'transport', 'oauth'] as const;

/**
 * One MCP server: either a program Forge starts and talks to over stdio (`command`, `args`, `env`,
 * `cwd`), or a remote server at `url` (Streamable HTTP, with the legacy SSE transport as a
 * fallback, or as `transport` says). For stdio, `env` is added to a minimal inherited environment
 * (`HOME`, `PATH`, `SHELL`, `TERM`, `USER`, `LOGNAME`): the rest of Forge's environment, API keys
 * included, is not passed on. For remote servers, a header whose name looks like a credential
 * (`Authorization`, `X-Api-Key`, ...) must be read from an environment variable (`{ "env": "NAME" }`),
 * never written in the file. `risk` is the approval risk of every tool of the server (default
 * `execute`, so a server's tools need the same approval as running a command).
 */
export const mcpServerConfigSchema = z
  .object({
    name: z
      .string()
      .regex(
        SERVER_NAME,
        'use 1–48 characters from A–Z, a–z, 0–9, "_" and "-" (it prefixes the names of the server\'s tools)',
      ),
    command: z.string().min(1, 'give the executable that starts the server').optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: z
      .string()
      .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
        message: 'give the http:// or https:// address of the server\'s MCP endpoint, e.g. "https://example.com/mcp"',
      })
      .optional(),
    headers: z.record(z.string().min(1), z.union([z.string(), headerFromEnvironmentSchema])).optional(),
    transport: z.enum(['streamable-http', 'sse']).optional(),
    oauth: oauthSchema.optional(),
    startupTimeoutMs: z.number().int().positive().max(600_000).optional(),
    toolTimeoutMs: z.number().int().positive().max(3_600_000).optional(),
    risk: z.enum(['read', 'write', 'execute']).optional(),
  })
  .strict()
  .superRefine((server, context) => {
    const isRemote = server.url !== undefined;
    if (server.command === undefined && !isRemote) {
      context.addIssue({
        code: 'custom',
        path: [],
        message:
          'give either "command" (a program Forge starts, speaking MCP over stdio) or "url" (a remote server speaking Streamable HTTP)',
      });
      return;
    }
    const misplaced = isRemote ? STDIO_ONLY : REMOTE_ONLY;
    for (const field of misplaced) {
      if (server[field] === undefined) continue;
      context.addIssue({
        code: 'custom',
        path: [field],
        message: isRemote
          ? `"${field}" belongs to a server Forge starts; a server with "url" is remote (remove "${field}" or "url")`
          : `"${field}" belongs to a remote server; add "url" instead of "command", or remove "${field}"`,
      });
    }
    for (const [header, value] of Object.entries(server.headers ?? {})) {
      if (typeof value !== 'string' || !SECRET_HEADER.test(header)) continue;
      context.addIssue({
        code: 'custom',
        path: ['headers', header],
        message: `header "${header}" carries a credential, which must not be written in the file: read it from an environment variable, e.g. { "env": "MY_TOKEN", "prefix": "Bearer " }`,
      });
    }
  });

export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;
/** A server Forge starts and talks to over stdio. */
export type McpStdioServerConfig = McpServerConfig & { readonly command: string };
/** A remote server, reached over Streamable HTTP (or legacy SSE). */
export type McpRemoteServerConfig = McpServerConfig & { readonly url: string };

/** True for a server reached at a `url`, false for one Forge starts. */
export function isRemoteServerConfig(config: McpServerConfig): config is McpRemoteServerConfig {
  return config.url !== undefined;
}

/** A list of servers whose names are unique. */
export const mcpServerConfigListSchema = z.array(mcpServerConfigSchema).superRefine((servers, context) => {
  const seen = new Set<string>();
  servers.forEach((server, index) => {
    if (seen.has(server.name)) {
      context.addIssue({
        code: 'custom',
        path: [index, 'name'],
        message: `another MCP server is already named "${server.name}"; names must be unique`,
      });
    }
    seen.add(server.name);
  });
});

/** The values of every server's `env`: they often hold credentials, so add them to the redactor's secrets. */
export function mcpServerEnvValues(configs: readonly McpServerConfig[]): string[] {
  return configs.flatMap((config) => Object.values(config.env ?? {}));
}

/** A header that could not be given a value, with the message saying what to set. */
export interface MissingHeader {
  readonly header: string;
  readonly variable: string;
}

/**
 * The headers of a remote server with their values: literal ones as written, the others read from
 * `environment`. Headers whose variable is unset or empty are listed in `missing`.
 */
export function resolveServerHeaders(
  config: McpServerConfig,
  environment: Readonly<Record<string, string | undefined>>,
): { readonly headers: Record<string, string>; readonly missing: readonly MissingHeader[] } {
  const headers: Record<string, string> = {};
  const missing: MissingHeader[] = [];
  for (const [header, value] of Object.entries(config.headers ?? {})) {
    if (typeof value === 'string') {
      headers[header] = value;
      continue;
    }
    const found = environment[value.env];
    if (found === undefined || found === '') missing.push({ header, variable: value.env });
    else headers[header] = `${value.prefix ?? ''}${found}`;
  }
  return { headers, missing };
}

/**
 * Every value of the configured servers that may be a credential, for the redactor: the `env`
 * values of stdio servers and the header values of remote servers read from `environment`
 * (each also without its prefix).
 */
export function mcpServerSecretValues(
  configs: readonly McpServerConfig[],
  environment: Readonly<Record<string, string | undefined>>,
): string[] {
  const fromHeaders = configs.flatMap((config) =>
    Object.values(config.headers ?? {}).flatMap((value) => {
      if (typeof value === 'string') return [];
      const found = environment[value.env];
      return found === undefined || found === '' ? [] : [found];
    }),
  );
  return [...mcpServerEnvValues(configs), ...fromHeaders];
}
