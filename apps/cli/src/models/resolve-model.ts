import { ModelChoiceError, parseModelIdentifier as parseId, resolveModelId, type ModelIdentifier } from '@forge/agent';
import { UsageError } from '../cli-error.js';

export { DEFAULT_MODEL, defaultModelNotice, type ModelProvider, type ModelProviderContext } from '@forge/agent';

/*
 * The CLI's door to the provider registry of `@forge/agent`: the same functions, with a model id
 * that cannot be used reported as a usage error (exit 2) naming what to change.
 */

function asUsageError(error: unknown): unknown {
  return ModelChoiceError.isInstance(error) ? new UsageError(error.message) : error;
}

/** Splits `provider:model`; a value without a provider or a model part is a usage error. */
export function parseModelIdentifier(value: string, chooseWith?: string): ModelIdentifier {
  try {
    return parseId(value, chooseWith);
  } catch (error) {
    throw asUsageError(error);
  }
}

/** Turns a model id into an adapter (see `resolveModelId`); a model that cannot be used is a usage error. */
export function resolveModel(...input: Parameters<typeof resolveModelId>): ReturnType<typeof resolveModelId> {
  return resolveModelId(...input).catch((error: unknown) => {
    throw asUsageError(error);
  });
}
