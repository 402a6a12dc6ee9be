import type { ForgeConfig } from '@forge/config';
import { createRedactor, isSecretValue, MIN_SECRET_LENGTH, type Redactor } from '@forge/core/redaction';
import { mcpServerSecretValues } from '@forge/mcp/config';
import { loadCliConfig } from '../config/cli-config.js';
import type { GlobalOptions } from '../commands/command.js';
import type { CliIo } from '../io.js';

/** What the session commands need to know: where sessions live and what to redact. */
export interface SessionSettings {
  readonly forgeHome: string;
  /** Applied to everything stored or traced. */
  readonly redactor: Redactor;
}

/**
 * Values of environment variables whose names mark them as secrets (`OPENAI_API_KEY`,
 * `GITHUB_TOKEN`, `DB_PASS`): if one turns up in a message or an error it is redacted by value,
 * whatever its shape. `PWD`, `OLDPWD` and names that merely contain a secret word are not secrets,
 * so a path in a prompt is never mangled.
 */
export function environmentSecrets(env: CliIo['env']): string[] {
  return Object.entries(env).flatMap(([name, value]) =>
    value !== undefined && value.length >= MIN_SECRET_LENGTH && isSecretValue(name, value, { quoted: true })
      ? [value]
      : [],
  );
}

/**
 * Every value the redactor removes: secret-named environment variables, the variables
 * `secrets.env` names (whatever their names), the `env` values of configured MCP servers and
 * the header values remote servers read from the environment.
 */
export function configuredSecrets(config: Pick<ForgeConfig, 'secrets' | 'mcpServers'>, env: CliIo['env']): string[] {
  const named = config.secrets.env.flatMap((name) => {
    const value = env[name];
    return value === undefined || value.length === 0 ? [] : [value];
  });
  return [...environmentSecrets(env), ...named, ...mcpServerSecretValues(config.mcpServers, env)];
}

/**
 * The session settings for one invocation: FORGE_HOME from `--forge-home`, `FORGE_HOME` or
 * `~/.forge`; the redactor with the configured secrets. Loads the configuration (once per invocation).
 */
export async function resolveSessionSettings(options: {
  readonly io: CliIo;
  readonly globals: GlobalOptions;
}): Promise<SessionSettings> {
  const { io } = options;
  const { forgeHome, loaded } = await loadCliConfig(options);
  const { config } = loaded;
  return {
    forgeHome,
    redactor: createRedactor({ secrets: configuredSecrets(config, io.env) }),
  };
}
