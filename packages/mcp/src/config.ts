import { z } from 'zod';

/** Server names become the prefix of tool names, so they are short and safe in any provider's tool-name pattern. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,48}$/;

/** Milliseconds a server may take to start and list its tools unless configured otherwise. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;

/** Milliseconds one tool call may take unless configured otherwise. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/**
 * One MCP server started over stdio. `env` is added to a minimal inherited environment (`HOME`,
 * `PATH`, `SHELL`, `TERM`, `USER`, `LOGNAME`): the rest of Forge's environment, API keys included,
 * is not passed on. `risk` is the approval risk of every tool of the server (default `execute`,
 * so a server's tools need the same approval as running a command).
 */
export const mcpServerConfigSchema = z
  .object({
    name: z
      .string()
      .regex(
        SERVER_NAME,
        'use 1–48 characters from A–Z, a–z, 0–9, "_" and "-" (it prefixes the names of the server\'s tools)',
      ),
    command: z.string().min(1, 'give the executable that starts the server'),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    startupTimeoutMs: z.number().int().positive().max(600_000).optional(),
    toolTimeoutMs: z.number().int().positive().max(3_600_000).optional(),
    risk: z.enum(['read', 'write', 'execute']).optional(),
  })
  .strict();

export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

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
