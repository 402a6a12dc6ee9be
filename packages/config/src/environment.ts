import { ConfigError } from './config-error.js';
import { flagLayerSchema, type ConfigLayer } from './schema.js';
import { zodIssues } from './validate.js';

/**
 * Environment variables Forge reads as configuration, above both files and below flags:
 *
 * | variable | sets |
 * | --- | --- |
 * | `FORGE_MODEL` | `model` (provider:model) |
 * | `FORGE_APPROVAL` | `approval.profile` |
 * | `FORGE_SECRET_ENV` | adds to `secrets.env` (comma-separated variable names) |
 * | `FORGE_SANDBOX` | `sandbox.mode` |
 * | `FORGE_CONTEXT_MODE` | `context.mode` |
 * | `FORGE_CONTEXT_RESERVED_OUTPUT_TOKENS` | `context.reservedOutputTokens` |
 * | `FORGE_CONTEXT_BUFFER_TOKENS` | `context.bufferTokens` |
 * | `FORGE_CONTEXT_RECENT_TAIL_TOKENS` | `context.recentTailTokens` |
 * | `FORGE_CONTEXT_SUMMARY_TARGET_TOKENS` | `context.summaryTargetTokens` |
 * | `FORGE_CONTEXT_WARN_AT_RATIO` | `context.warnAtRatio` |
 * | `FORGE_CONTEXT_COMPACT_AT_RATIO` | `context.compactAtRatio` |
 * | `FORGE_CONTEXT_COMPACT_TARGET_RATIO` | `context.compactTargetRatio` |
 * | `FORGE_CONTEXT_PROTECTED_TOOL_OUTPUT_RATIO` | `context.protectedToolOutputRatio` |
 * | `FORGE_CONTEXT_FALLBACK_WINDOW_TOKENS` | `context.fallbackContextWindowTokens` |
 * | `FORGE_CONTEXT_CHECKPOINT_NOTE` | `context.checkpointNote` (`true` or `false`) |
 * | `FORGE_CONTEXT_REQUEST_COMPACTION` | `context.requestCompaction` (`true` or `false`) |
 *
 * An empty variable counts as unset.
 */
export const CONTEXT_ENVIRONMENT_VARIABLES = {
  FORGE_CONTEXT_MODE: 'mode',
  FORGE_CONTEXT_RESERVED_OUTPUT_TOKENS: 'reservedOutputTokens',
  FORGE_CONTEXT_BUFFER_TOKENS: 'bufferTokens',
  FORGE_CONTEXT_RECENT_TAIL_TOKENS: 'recentTailTokens',
  FORGE_CONTEXT_SUMMARY_TARGET_TOKENS: 'summaryTargetTokens',
  FORGE_CONTEXT_WARN_AT_RATIO: 'warnAtRatio',
  FORGE_CONTEXT_COMPACT_AT_RATIO: 'compactAtRatio',
  FORGE_CONTEXT_COMPACT_TARGET_RATIO: 'compactTargetRatio',
  FORGE_CONTEXT_PROTECTED_TOOL_OUTPUT_RATIO: 'protectedToolOutputRatio',
  FORGE_CONTEXT_FALLBACK_WINDOW_TOKENS: 'fallbackContextWindowTokens',
  FORGE_CONTEXT_CHECKPOINT_NOTE: 'checkpointNote',
  FORGE_CONTEXT_REQUEST_COMPACTION: 'requestCompaction',
} as const;

export type Environment = Readonly<Record<string, string | undefined>>;

/** The configuration layer the environment sets, with the variable behind each dotted path. */
export interface EnvironmentLayer {
  readonly layer: ConfigLayer;
  readonly variables: Readonly<Record<string, string>>;
}

function numberOrText(value: string): number | string {
  return /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value.trim()) : value;
}

function booleanOrText(value: string): boolean | string {
  const word = value.trim().toLowerCase();
  return word === 'true' ? true : word === 'false' ? false : value;
}

const BOOLEAN_CONTEXT_FIELDS: ReadonlySet<string> = new Set(['checkpointNote', 'requestCompaction']);

/** Reads the variables above; a value of the wrong form is a `ConfigError` naming the variable. */
export function readEnvironmentLayer(env: Environment): EnvironmentLayer {
  const layer: Record<string, unknown> = {};
  const context: Record<string, unknown> = {};
  const variables: Record<string, string> = {};
  const set = (variable: string, path: string, apply: (value: string) => void) => {
    const value = env[variable];
    if (value === undefined || value === '') return;
    apply(value);
    variables[path] = variable;
  };
  set('FORGE_MODEL', 'model', (value) => (layer['model'] = value));
  set('FORGE_APPROVAL', 'approval.profile', (value) => (layer['approval'] = { profile: value }));
  set(
    'FORGE_SECRET_ENV',
    'secrets.env',
    (value) =>
      (layer['secrets'] = {
        env: value
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name.length > 0),
      }),
  );
  set('FORGE_SANDBOX', 'sandbox.mode', (value) => (layer['sandbox'] = { mode: value }));
  for (const [variable, field] of Object.entries(CONTEXT_ENVIRONMENT_VARIABLES)) {
    set(
      variable,
      `context.${field}`,
      (value) =>
        (context[field] =
          field === 'mode' ? value : BOOLEAN_CONTEXT_FIELDS.has(field) ? booleanOrText(value) : numberOrText(value)),
    );
  }
  if (Object.keys(context).length > 0) layer['context'] = context;

  const parsed = flagLayerSchema.safeParse(layer);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    const named = issues.map((issue) => ({
      ...issue,
      path: variables[issue.path] ?? variables[issue.path.split('.').slice(0, 2).join('.')] ?? issue.path,
    }));
    throw new ConfigError('the environment', named);
  }
  return { layer: parsed.data, variables };
}
