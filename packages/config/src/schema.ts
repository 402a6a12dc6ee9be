import type { ContextMode } from '@forge/core';
import { mcpServerConfigListSchema } from '@forge/mcp/config';
import { isAbsolute } from 'node:path';
import { z } from 'zod';

/*
 * The configuration file, version 1. Every object is strict: a key Forge does not know is an
 * error with its path, so a typo (`bufferToken`) never silently falls back to a default. The same
 * shape (without `schemaVersion`) is used for the flag layer.
 */

export const CONFIG_SCHEMA_VERSION = 1 as const;

/** Approval profiles, from most to least restrictive (the order `@forge/tools` defines). */
export const APPROVAL_PROFILES = ['read-only', 'ask', 'workspace-write', 'workspace-auto'] as const;
export type ApprovalProfileName = (typeof APPROVAL_PROFILES)[number];

/** `traces.keepDays` when no layer sets it. */
export const DEFAULT_TRACE_KEEP_DAYS = 30;
/** `traces.keepRuns` when no layer sets it. */
export const DEFAULT_TRACE_KEEP_RUNS = 200;

/** Sandbox modes, from most to least restrictive (the order `@forge/tools` defines). */
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'off'] as const;
export type SandboxModeName = (typeof SANDBOX_MODES)[number];

/** How checkpoints are built; see `CompactionStrategySetting` in `@forge/core`. */
const COMPACTION_STRATEGIES = ['forge-state', 'model-structured', 'provider-native'] as const;
export type CompactionStrategyName = (typeof COMPACTION_STRATEGIES)[number];

const modelIdentifier = z.string().regex(/^[A-Za-z0-9_-]+:.+$/, 'must be provider:model, e.g. openai:gpt-5.1');

const tokens = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const environmentVariable = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name such as MY_TOKEN');

export const contextSectionSchema = z
  .strictObject({
    mode: z
      .enum(['off', 'warn', 'shadow', 'compact'] satisfies ContextMode[])
      .describe('off | warn | shadow | compact (default compact)'),
    reservedOutputTokens: tokens.describe(
      'Output tokens reserved for the answer when a request does not say (default 4096).',
    ),
    bufferTokens: tokens.describe(
      'Safety margin; the larger of this and the output reserve is subtracted from the window once (default 8192).',
    ),
    recentTailTokens: tokens.describe(
      'Tokens of recent history a compaction keeps verbatim after the new checkpoint; not a cap on what a request sends (default 12000).',
    ),
    summaryTargetTokens: tokens.describe('Target size of a checkpoint summary (default 1200).'),
    warnAtRatio: z
      .number()
      .gt(0)
      .max(1)
      .describe('Warn once the estimate passes this share of the available input (default 0.8).'),
    compactAtRatio: z
      .number()
      .gt(0)
      .max(1)
      .describe(
        'Mode compact: compact once the request estimate passes this share of the available input (default 0.85).',
      ),
    compactTargetRatio: z
      .number()
      .gt(0)
      .max(1)
      .describe(
        'Mode compact: a compaction brings the request back down to this share of the available input; below compactAtRatio (default 0.5).',
      ),
    protectedToolOutputRatio: z
      .number()
      .min(0)
      .max(1)
      .describe(
        'Mode compact: the newest distinct tool outputs stay verbatim up to this share of the compaction target when older outputs are projected; 0 protects none (default 0.25).',
      ),
    fallbackContextWindowTokens: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .describe('Window assumed for models no table or configuration knows (default 32768).'),
    checkpointNote: z
      .boolean()
      .describe(
        'Offer the model the checkpoint_note tool in modes shadow and compact, so what it notes survives compaction (default true).',
      ),
    requestCompaction: z
      .boolean()
      .describe('Offer the model the request_compaction tool in modes shadow and compact (default true).'),
    compaction: z
      .strictObject({
        strategy: z
          .enum(COMPACTION_STRATEGIES)
          .describe(
            "How a session builds checkpoints: forge-state (default, no model call), model-structured (needs model), provider-native (the active model's own compaction). A project may only choose forge-state.",
          ),
        model: modelIdentifier.describe(
          'The compactor model of model-structured, provider:model; it receives the conversation to summarize (user configuration only).',
        ),
      })
      .partial()
      .describe('How sessions compact: strategy and compactor model.'),
    workingSet: z
      .strictObject({
        maxTokens: tokens.describe(
          'Most tokens of file text a forge-state checkpoint keeps in hand; a compaction gives it a quarter of its target, at least 4000 (0 turns the working set off; default 32000).',
        ),
        maxFileTokens: tokens.describe(
          'Most tokens of one file in hand: a larger file shows the region last read or edited (default 10000).',
        ),
        maxFiles: z
          .number()
          .int()
          .min(0)
          .max(64)
          .describe('Most files in hand, the most recently read or edited first (default 8).'),
      })
      .partial()
      .describe('The files a forge-state checkpoint keeps in hand, read fresh from disk each time it is rendered.'),
    providerNative: z
      .strictObject({
        persist: z
          .boolean()
          .describe(
            'Keep provider-native compaction state on disk (0600 files under FORGE_HOME/state) so a later process replays it (default false; a project may only turn it off).',
          ),
      })
      .partial()
      .describe('Provider-native compaction state.'),
  })
  .partial();

/** Tokenizer families `@forge/model-compatible` ships (a CLI test keeps this list equal to the adapter's). */
export const COMPATIBLE_TOKENIZER_FAMILIES: readonly string[] = ['qwen3', 'llama3'];

/** One OpenAI-compatible server model; the fields of `@forge/model-compatible`'s configuration entry. */
export const compatibleModelSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'use 1–64 letters, digits, ".", "_" or "-"')
    .describe('Name used in model ids: compatible:<name>.'),
  baseURL: z.url().describe('The server base URL, e.g. http://127.0.0.1:11434/v1.'),
  modelId: z.string().min(1).describe('The model id the server expects.'),
  contextWindowTokens: z
    .number()
    .int()
    .positive()
    .describe('The window the server was started with (required: servers do not report it reliably).'),
  maxOutputTokens: z.number().int().positive().optional(),
  apiKeyVariable: environmentVariable
    .optional()
    .describe('Environment variable that holds the API key, if the server needs one.'),
  headers: z.record(z.string(), z.string()).optional(),
  tokenizer: z
    .string()
    .refine(
      (value) => COMPATIBLE_TOKENIZER_FAMILIES.includes(value) || (isAbsolute(value) && value.endsWith('.json')),
      {
        message: `must be a tokenizer family (${COMPATIBLE_TOKENIZER_FAMILIES.join(', ')}) or the absolute path of a Hugging Face tokenizer.json`,
      },
    )
    .optional()
    .describe(
      "How requests to this server are counted: a tokenizer family (qwen3, llama3) or the absolute path of the model's tokenizer.json; without it, a conservative estimate.",
    ),
  estimateScale: z
    .number()
    .gt(0)
    .max(1)
    .optional()
    .describe(
      'Multiplies every estimate for this server (0–1): the correction forge models list offers once a conservative estimate consistently overcounts.',
    ),
});

const dollars = z.number().min(0).max(1_000_000);
// exactOptional: a price read from a file never holds an optional rate set to undefined, and the
// price sheets built from these entries promise the same.
const tokenPriceShape = {
  inputPerMillion: dollars.describe('US dollars per million input tokens processed afresh.'),
  cachedInputPerMillion: dollars
    .exactOptional()
    .describe('Per million input tokens read from the prompt cache (default: inputPerMillion).'),
  cacheWritePerMillion: dollars
    .exactOptional()
    .describe('Per million input tokens written to the prompt cache (default: inputPerMillion).'),
  outputPerMillion: dollars.describe('US dollars per million output tokens, reasoning included.'),
};

/** The prices of one model, in US dollars per million tokens. They replace the capability table's prices as a whole. */
export const priceEntrySchema = z.strictObject({
  ...tokenPriceShape,
  longContext: z
    .strictObject({
      aboveInputTokens: z
        .number()
        .int()
        .min(1)
        .max(Number.MAX_SAFE_INTEGER)
        .describe('The rates apply to a whole request above this many input tokens.'),
      ...tokenPriceShape,
    })
    .exactOptional()
    .describe('Rates for requests with more input than aboveInputTokens.'),
  asOf: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date such as 2026-12-01')
    .exactOptional()
    .describe('When you read these prices (YYYY-MM-DD).'),
  note: z.string().max(200).exactOptional().describe('Shown next to the prices, e.g. "negotiated rate".'),
});

const layerShape = {
  model: modelIdentifier.describe('Default model, provider:model.'),
  approval: z.strictObject({ profile: z.enum(APPROVAL_PROFILES) }).describe('Which tool calls may run without asking.'),
  secrets: z
    .strictObject({ env: z.array(environmentVariable) })
    .describe('Environment variables whose values are redacted everywhere.'),
  sandbox: z
    .strictObject({
      mode: z
        .enum(SANDBOX_MODES)
        .describe(
          'Where run_command may write: read-only, workspace-write (default; the workspace less .git, AGENTS.md, .forge/) or off. A project may only tighten it.',
        ),
      network: z
        .boolean()
        .describe('Network inside the sandbox without asking (default false; a project may only turn it off).'),
      env: z
        .array(environmentVariable)
        .describe(
          'Variables passed to commands besides PATH, LANG, LC_*, TERM and TZ; secret-named ones never pass (a project may only remove names).',
        ),
    })
    .partial()
    .describe('The sandbox run_command runs in (bubblewrap on Linux, Seatbelt on macOS).'),
  traces: z
    .strictObject({
      keepDays: z
        .number()
        .int()
        .min(1)
        .max(36_500)
        .describe(`forge gc prunes run traces older than this many days (default ${DEFAULT_TRACE_KEEP_DAYS}).`),
      keepRuns: z
        .number()
        .int()
        .min(0)
        .max(10_000_000)
        .describe(`The newest this many traces are kept whatever their age (default ${DEFAULT_TRACE_KEEP_RUNS}).`),
    })
    .partial()
    .describe('How long run traces are kept (user configuration only). Session logs are never pruned.'),
  models: z.array(compatibleModelSchema).describe('OpenAI-compatible servers (user configuration only).'),
  context: contextSectionSchema,
  mcpServers: mcpServerConfigListSchema.describe(
    'MCP servers: programs started over stdio ({ command, args, env, cwd }) or remote servers ({ url, headers }, Streamable HTTP or SSE); their tools are offered beside the built-in ones (user configuration only).',
  ),
  anthropic: z
    .strictObject({
      cacheLifetime: z
        .enum(['5m', '1h'], { error: 'must be "5m" or "1h", the cache lifetimes Anthropic offers' })
        .describe(
          'Lifetime of the cache breakpoints on anthropic: models: 5m (default; writes bill 1.25× input) or 1h (2× input).',
        ),
    })
    .partial()
    .describe('Settings of the Anthropic adapter.'),
  prices: z
    .record(modelIdentifier, priceEntrySchema)
    .describe(
      'Prices per model id (openai:gpt-5.1, compatible:<name>), overriding the capability tables (user configuration only).',
    ),
};

/** A configuration file on disk. */
export const configFileSchema = z.strictObject({
  $schema: z.string().optional().describe('Editor hint: the JSON Schema of this file.'),
  schemaVersion: z.literal(CONFIG_SCHEMA_VERSION),
  ...z.object(layerShape).partial().shape,
});

/** What flags may set: any file field but `schemaVersion` and `$schema`. */
export const flagLayerSchema = z.object(layerShape).partial().strict();

export type ConfigFile = z.infer<typeof configFileSchema>;
export type ConfigLayer = z.infer<typeof flagLayerSchema>;
export type CompatibleModelEntry = z.infer<typeof compatibleModelSchema>;
export type PriceEntry = z.infer<typeof priceEntrySchema>;
