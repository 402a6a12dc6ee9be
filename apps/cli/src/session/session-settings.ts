import { createRedactor, isSensitiveName, MIN_SECRET_LENGTH, type Redactor } from '@forge/core';
import { resolveForgeHome } from '@forge/persistence';
import type { CliIo } from '../io.js';

/** Tokens of recent conversation sent verbatim with each request (`context.recentTailTokens`). */
export const DEFAULT_RECENT_TAIL_TOKENS = 12_000;
/** Size a checkpoint is assumed to have when projecting a compaction (`context.summaryTargetTokens`). */
export const DEFAULT_SUMMARY_TARGET_TOKENS = 1_200;

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
 * `GITHUB_TOKEN`): if one turns up in a message or an error it is redacted by value, whatever
 * its shape.
 */
function environmentSecrets(env: CliIo['env']): string[] {
  return Object.entries(env).flatMap(([name, value]) =>
    value !== undefined && value.length >= MIN_SECRET_LENGTH && isSensitiveName(name) ? [value] : [],
  );
}

/**
 * The session settings for one invocation: FORGE_HOME from `--forge-home`, `FORGE_HOME` or
 * `~/.forge`; the view and compaction sizes; the redactor. This is the one place these are
 * resolved, so reading them from the configuration file changes only this function.
 */
export async function resolveSessionSettings(options: {
  readonly io: CliIo;
  readonly globals: Readonly<Record<string, unknown>>;
}): Promise<SessionSettings> {
  const { io, globals } = options;
  const flag = typeof globals.forgeHome === 'string' ? globals.forgeHome : undefined;
  return {
    forgeHome: resolveForgeHome({ ...(flag === undefined ? {} : { flag }), env: io.env, cwd: io.cwd }),
    recentTailTokens: DEFAULT_RECENT_TAIL_TOKENS,
    summaryTargetTokens: DEFAULT_SUMMARY_TARGET_TOKENS,
    redactor: createRedactor({ secrets: environmentSecrets(io.env) }),
  };
}
