import type { CompatibleModelEntry } from '@forge/config';
import { AuthError, InvalidInputError, type ModelAdapter, type PriceSheet } from '@forge/core';
import { UsageError } from '../cli-error.js';
import type { CliIo } from '../io.js';

/** The model used when neither `--model` nor configuration names one. */
export const DEFAULT_MODEL = 'scripted:demo';

/** A model id split at its first colon: `openai:gpt-5` → provider `openai`, model `gpt-5`. */
export interface ModelIdentifier {
  readonly provider: string;
  readonly modelId: string;
}

export interface ModelProviderContext {
  readonly env: CliIo['env'];
  /** OpenAI-compatible servers from the configuration's `models` (`compatible:<name>`). */
  readonly compatibleModels: readonly CompatibleModelEntry[];
  /** Prices configured for this very model id (`prices["provider:model"]`); they replace the capability table's. */
  readonly prices?: PriceSheet;
}

/**
 * Test hook: when this variable names a JSON file, `scripted:file` plays the replies in it (see
 * `scripted-file.ts`). It lets tests drive the built binary in a terminal; users never need it.
 */
export const TEST_MODEL_SCRIPT_VARIABLE = 'FORGE_TEST_MODEL_SCRIPT';

/**
 * Creates adapters for one provider. `create` throws a `UsageError` when the provider cannot be
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
      if (modelId !== 'demo') throw new UsageError(`unknown scripted model "${modelId}"; the scripted provider offers: demo`);
      const { createDemoModel } = await import('./scripted-demo.js');
      return createDemoModel();
    },
  },
  {
    name: 'openai',
    async create(modelId, { env, prices }) {
      const { createOpenAIModel } = await import('@forge/model-openai');
      return asUsageError(() => createOpenAIModel({ modelId, env, ...(prices === undefined ? {} : { prices }) }));
    },
  },
  {
    name: 'deepseek',
    async create(modelId, { env, prices }) {
      const { createDeepSeekModel } = await import('@forge/model-deepseek');
      return asUsageError(() => createDeepSeekModel({ modelId, env, ...(prices === undefined ? {} : { prices }) }));
    },
  },
  {
    name: 'compatible',
    async create(name, { env, compatibleModels, prices }) {
      const entry = compatibleModels.find((candidate) => candidate.name === name);
      if (entry === undefined) {
        const configured = compatibleModels.map((candidate) => candidate.name);
        throw new UsageError(
          configured.length === 0
            ? `compatible:${name} is not configured: no OpenAI-compatible servers are set; add one named "${name}" to "models" in your user configuration (FORGE_HOME/config.json, see docs/configuration.md)`
            : `compatible:${name} is not configured; configured compatible models: ${configured.join(', ')}`,
        );
      }
      const { createCompatibleModel } = await import('@forge/model-compatible');
      return asUsageError(() => createCompatibleModel({ ...entry, env, ...(prices === undefined ? {} : { prices }) }));
    },
  },
];

/** Adapter factories throw typed errors for a missing key or a bad base URL; the CLI reports them as usage errors (exit 2). */
function asUsageError(create: () => ModelAdapter): ModelAdapter {
  try {
    return create();
  } catch (error) {
    if (AuthError.isInstance(error)) {
      throw new UsageError(`${error.variable ?? 'the API key'} is not set; export it or choose another model with --model`);
    }
    if (InvalidInputError.isInstance(error)) throw new UsageError(error.message);
    throw error;
  }
}

/** Splits `provider:model`; a value without a provider or a model part is a usage error. */
export function parseModelIdentifier(value: string): ModelIdentifier {
  const colon = value.indexOf(':');
  const provider = colon === -1 ? '' : value.slice(0, colon);
  const modelId = colon === -1 ? '' : value.slice(colon + 1);
  if (provider.length === 0 || modelId.length === 0) {
    throw new UsageError(`model "${value}" is not of the form provider:model; for example --model scripted:demo or --model openai:gpt-5`);
  }
  return { provider, modelId };
}

/**
 * Turns a model id into an adapter; `compatible:<name>` is built from the entry of that name in
 * `compatibleModels`. `extraProviders` are consulted before the built-ins (tests inject scripted
 * models this way).
 */
export async function resolveModel(
  value: string,
  options: {
    readonly env: CliIo['env'];
    readonly extraProviders?: readonly ModelProvider[];
    readonly compatibleModels?: readonly CompatibleModelEntry[];
    /** Configured prices by model id (`openai:gpt-5.1`). */
    readonly prices?: ReadonlyMap<string, PriceSheet>;
  },
): Promise<ModelAdapter> {
  const { provider, modelId } = parseModelIdentifier(value);
  const prices = options.prices?.get(`${provider}:${modelId}`);
  const providers = [...(options.extraProviders ?? []), ...builtInProviders];
  const found = providers.find((candidate) => candidate.name === provider);
  if (found === undefined) {
    const known = [...new Set(providers.map((candidate) => candidate.name))].join(', ');
    throw new UsageError(`unknown model provider "${provider}" in "${value}"; known providers: ${known}`);
  }
  return found.create(modelId, { env: options.env, compatibleModels: options.compatibleModels ?? [], ...(prices === undefined ? {} : { prices }) });
}
