import type { ForgeConfig } from '@forge/config';
import { createRedactor, DEFAULT_CONTEXT_POLICY, isSecretValue, MIN_SECRET_LENGTH, type Redactor } from '@forge/core';
import { mcpServerEnvValues } from '@forge/mcp/config';
import { loadCliConfig } from '../config/cli-config.js';
import type { CliIo } from '../io.js';

/** Tokens of recent conversation sent verbatim with each request, unless configured (`context.recentTailTokens`). */
export const DEFAULT_RECENT_TAIL_TOKENS = DEFAULT_CONTEXT_POLICY.recentTailTokens;
/** Size a checkpoint is assumed to have when projecting a compaction, unless configured (`context.summaryTargetTokens`). */
export const DEFAULT_SUMMARY_TARGET_TOKENS = DEFAULT_CONTEXT_POLICY.summaryTargetTokens;

/** What the session commands need to know: where sessions live, how the view is chosen, what to redact. */
export interface SessionSettings {
  readonly forgeHome: string;
  readonly recentTailTokens: number;
  readonly summaryTargetTokens: number;
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
    value !== undefined && value.length >= MIN_SECRET_LENGTH && isSecretValue(name, value, { quoted: true }) ? [value] : [],
  );
}

/**
 * Every value the redactor removes: secret-named environment variables, the variables
 * `secrets.env` names (whatever their names), and the `env` values of configured MCP servers.
 */
export function configuredSecrets(config: Pick<ForgeConfig, 'secrets' | 'mcpServers'>, env: CliIo['env']): string[] {
  const named = config.secrets.env.flatMap((name) => {
    const value = env[name];
    return value === undefined || value.length === 0 ? [] : [value];
  });
  return [...environmentSecrets(env), ...named, ...mcpServerEnvValues(config.mcpServers)];
}

/**
 * The session settings for one invocation: FORGE_HOME from `--forge-home`, `FORGE_HOME` or
 * `~/.forge`; the view and compaction sizes from the configuration's `context` section; the
 * redactor with the configured secrets. Loads the configuration (once per invocation).
 */
export async function resolveSessionSettings(options: {
  readonly io: CliIo;
  readonly globals: Readonly<Record<string, unknown>>;
}): Promise<SessionSettings> {
  const { io } = options;
  const { forgeHome, loaded } = await loadCliConfig(options);
  const { config } = loaded;
  return {
    forgeHome,
    recentTailTokens: config.context.recentTailTokens,
    summaryTargetTokens: config.context.summaryTargetTokens,
    redactor: createRedactor({ secrets: configuredSecrets(config, io.env) }),
  };
}
