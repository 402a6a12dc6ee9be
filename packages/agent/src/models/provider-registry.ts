import type { CompatibleModelEntry } from '@forge/config';
import { AuthError, InvalidInputError, type ModelAdapter, type PriceSheet } from '@forge/core';
import { ModelChoiceError } from './model-choice-error.js';
import { measuringOnly } from './adapter-decorators.js';

/** The model used when neither `--model` nor configuration names one. */
export const DEFAULT_MODEL = 'scripted:demo';

/**
 * What the user is told before the first turn when no model is configured and the demo answers:
 * that it is the demo, and how to choose a real model (`chooseWith` is `--model` or `/model`).
 */
export function defaultModelNotice(chooseWith: string): string {
  return (
    'no model is configured, so the scripted demo model answers: it lists and reads files but does not act on your request. ' +
    `See the models you can use with 'forge models list', then choose one with ${chooseWith} provider:id or set "model" in FORGE_HOME/config.json (docs/configuration.md).`
  );
}

/** A model id split at its first colon: `openai:gpt-5` → provider `openai`, model `gpt-5`. */
export interface ModelIdentifier {
  readonly provider: string;
  readonly modelId: string;
}

export interface ModelProviderContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How the user picks another model, named in errors: `--model`, or `/model` in the REPL. */
  readonly chooseWith?: string;
  /** OpenAI-compatible servers from the configuration's `models` (`compatible:<name>`). */
  readonly compatibleModels: readonly CompatibleModelEntry[];
  /** Prices configured for this very model id (`prices["provider:model"]`); they replace the capability table's. */
  readonly prices?: PriceSheet;
  /** The window assumed for an id the provider's table does not know (`context.fallbackContextWindowTokens`). */
  readonly fallbackContextWindowTokens?: number;
  /**
   * `measure`: the adapter only estimates (`forge context`), so a missing API key is no error;
   * the adapter refuses to send instead. Default `run`.
   */
  readonly purpose?: 'run' | 'measure';
  /** The user configuration file, named in errors about a `models` entry. */
  readonly userConfigFile?: string;
  /** `anthropic.cacheLifetime`: the lifetime of the cache breakpoints of `anthropic:` models (default 5m). */
  readonly anthropicCacheLifetime?: '5m' | '1h';
}

/**
 * Test hook: when this variable names a JSON file, `scripted:file` plays the replies in it (see
 * `scripted-file.ts`). It lets tests drive the built binary in a terminal; users never need it.
 */
export const TEST_MODEL_SCRIPT_VARIABLE = 'FORGE_TEST_MODEL_SCRIPT';

/**
 * Creates adapters for one provider. `create` throws a `ModelChoiceError` when the provider cannot be
 * used as configured (missing API key, unknown model), so the CLI exits with code 2.
 */
export interface ModelProvider {
  /** The part of a model id before the colon. */
  readonly name: string;
  create(modelId: string, context: ModelProviderContext): Promise<ModelAdapter>;
}

/*
 * Built-in providers. An adapter package plugs in by replacing its entry's `create` with a
 * dynamic import of the package, so the adapter is loaded only when a model of it is chosen.
 */
const builtInProviders: readonly ModelProvider[] = [
  {
    name: 'scripted',
    async create(modelId, { env }) {
      const script = env[TEST_MODEL_SCRIPT_VARIABLE];
      if (modelId === 'file' && script !== undefined && script !== '') {
        const { loadScriptedFileModel } = await import('./scripted-file.js');
        return loadScriptedFileModel(script);
      }
      if (modelId !== 'demo')
        throw new ModelChoiceError(`unknown scripted model "${modelId}"; the scripted provider offers: demo`);
      const { createDemoModel } = await import('./scripted-demo.js');
      return createDemoModel();
    },
  },
  {
    name: 'openai',
    async create(modelId, context) {
      const { createOpenAIModel } = await import('@forge/model-openai');
      return keyed(context, (apiKey) =>
        createOpenAIModel({
          modelId,
          env: context.env,
          apiKey,
          ...tableOptionsOf(context),
        }),
      );
    },
  },
  {
    name: 'deepseek',
    async create(modelId, context) {
      const { createDeepSeekModel } = await import('@forge/model-deepseek');
      return keyed(context, (apiKey) =>
        createDeepSeekModel({
          modelId,
          env: context.env,
          apiKey,
          ...tableOptionsOf(context),
        }),
      );
    },
  },
  {
    name: 'anthropic',
    async create(modelId, context) {
      const { createAnthropicModel } = await import('@forge/model-anthropic');
      return keyed(context, (apiKey) =>
        createAnthropicModel({
          modelId,
          env: context.env,
          apiKey,
          ...(context.anthropicCacheLifetime === undefined ? {} : { cacheLifetime: context.anthropicCacheLifetime }),
          ...tableOptionsOf(context),
        }),
      );
    },
  },
  {
    name: 'compatible',
    async create(name, context) {
      const { env, compatibleModels } = context;
      const entry = compatibleModels.find((candidate) => candidate.name === name);
      if (entry === undefined) {
        const configured = compatibleModels.map((candidate) => candidate.name);
        throw new ModelChoiceError(
          configured.length === 0
            ? `compatible:${name} is not configured: no OpenAI-compatible servers are set; add one named "${name}" to "models" in your user configuration (FORGE_HOME/config.json, see docs/configuration.md)`
            : `compatible:${name} is not configured; configured compatible models: ${configured.join(', ')}`,
        );
      }
      const { COMPATIBLE_TOKENIZER_FAMILIES, createCompatibleModel, loadCompatibleTokenizer } =
        await import('@forge/model-compatible');
      if (entry.tokenizer !== undefined) {
        // Read now: a bad tokenizer file is a configuration error before any request, not a failed estimate.
        try {
          await loadCompatibleTokenizer(entry.tokenizer);
        } catch (error) {
          const where = `models.${compatibleModels.indexOf(entry)}.tokenizer`;
          const reason = error instanceof Error ? error.message.replace(/\.$/, '') : String(error);
          throw new ModelChoiceError(
            `Invalid configuration in ${context.userConfigFile ?? 'the user configuration'}: ${where}: ${reason}; set the path of the model's tokenizer.json, or a family (${COMPATIBLE_TOKENIZER_FAMILIES.join(', ')})`,
          );
        }
      }
      return keyed(context, (apiKey) =>
        createCompatibleModel({
          ...entry,
          env,
          apiKey,
          ...(context.prices === undefined ? {} : { prices: context.prices }),
        }),
      );
    },
  },
];

/**
 * Creates an adapter, reporting a missing key as a usage error. To measure only, a missing key is
 * no error: the adapter is made with a stand-in key and refuses to send (see `measuringOnly`).
 */
async function keyed(context: ModelProviderContext, create: (apiKey?: string) => ModelAdapter): Promise<ModelAdapter> {
  try {
    return create();
  } catch (error) {
    if (!AuthError.isInstance(error) || context.purpose !== 'measure')
      throw modelChoiceErrorOf(error, context.chooseWith);
    const missing = missingKeyMessage(error, context.chooseWith);
    return measuringOnly(
      asModelChoiceError(() => create(MEASURING_ONLY_KEY), context.chooseWith),
      missing,
    );
  }
}

/** Never sent: an adapter made with it for measuring refuses to stream. */
const MEASURING_ONLY_KEY = 'forge-measuring-only';

/** Adapter factories throw typed errors for a missing key or a bad base URL; reported as a `ModelChoiceError` (the CLI exits 2). */
function asModelChoiceError(create: () => ModelAdapter, chooseWith = '--model'): ModelAdapter {
  try {
    return create();
  } catch (error) {
    throw modelChoiceErrorOf(error, chooseWith);
  }
}

function modelChoiceErrorOf(error: unknown, chooseWith = '--model'): unknown {
  if (AuthError.isInstance(error)) return new ModelChoiceError(missingKeyMessage(error, chooseWith));
  if (InvalidInputError.isInstance(error)) return new ModelChoiceError(error.message);
  return error;
}

function missingKeyMessage(error: AuthError, chooseWith = '--model'): string {
  return `${error.variable ?? 'the API key'} is not set; export it or choose another model with ${chooseWith}`;
}

/** The configured prices and fallback window of a context, as options of a table vendor's adapter factory. */
function tableOptionsOf(context: ModelProviderContext): {
  readonly prices?: PriceSheet;
  fallbackContextWindowTokens?: number;
} {
  return {
    ...(context.prices === undefined ? {} : { prices: context.prices }),
    ...(context.fallbackContextWindowTokens === undefined
      ? {}
      : { fallbackContextWindowTokens: context.fallbackContextWindowTokens }),
  };
}

/** Splits `provider:model`; a value without a provider or a model part is a usage error. */
export function parseModelIdentifier(value: string, chooseWith = '--model'): ModelIdentifier {
  const colon = value.indexOf(':');
  const provider = colon === -1 ? '' : value.slice(0, colon);
  const modelId = colon === -1 ? '' : value.slice(colon + 1);
  if (provider.length === 0 || modelId.length === 0) {
    throw new ModelChoiceError(
      `model "${value}" is not of the form provider:model; for example ${chooseWith} scripted:demo or ${chooseWith} openai:gpt-5`,
    );
  }
  return { provider, modelId };
}

/**
 * Turns a model id into an adapter; `compatible:<name>` is built from the entry of that name in
 * `compatibleModels`. `extraProviders` are consulted before the built-ins (tests inject scripted
 * models this way).
 */
export async function resolveModelId(
  value: string,
  options: {
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly extraProviders?: readonly ModelProvider[];
    readonly compatibleModels?: readonly CompatibleModelEntry[];
    readonly purpose?: 'run' | 'measure';
    readonly userConfigFile?: string;
    /** How the user picks another model, named in errors (default `--model`). */
    readonly chooseWith?: string;
    /** Configured prices by model id (`openai:gpt-5.1`). */
    readonly prices?: ReadonlyMap<string, PriceSheet>;
    /** The window assumed for ids a provider's table does not know. */
    readonly fallbackContextWindowTokens?: number;
    readonly anthropicCacheLifetime?: '5m' | '1h';
  },
): Promise<ModelAdapter> {
  const { provider, modelId } = parseModelIdentifier(value, options.chooseWith);
  const prices = options.prices?.get(`${provider}:${modelId}`);
  const providers = [...(options.extraProviders ?? []), ...builtInProviders];
  const found = providers.find((candidate) => candidate.name === provider);
  if (found === undefined) {
    const known = [...new Set(providers.map((candidate) => candidate.name))].join(', ');
    throw new ModelChoiceError(`unknown model provider "${provider}" in "${value}"; known providers: ${known}`);
  }
  return found.create(modelId, {
    env: options.env,
    compatibleModels: options.compatibleModels ?? [],
    ...(options.purpose === undefined ? {} : { purpose: options.purpose }),
    ...(options.userConfigFile === undefined ? {} : { userConfigFile: options.userConfigFile }),
    ...(options.chooseWith === undefined ? {} : { chooseWith: options.chooseWith }),
    ...(prices === undefined ? {} : { prices }),
    ...(options.fallbackContextWindowTokens === undefined
      ? {}
      : { fallbackContextWindowTokens: options.fallbackContextWindowTokens }),
    ...(options.anthropicCacheLifetime === undefined ? {} : { anthropicCacheLifetime: options.anthropicCacheLifetime }),
  });
}
