import { AuthError, InvalidInputError } from '@forge/core';

/** Where a provider's base URL and key may come from, in order: options, environment, default. */
export interface EndpointSettingsInput {
  /** How users know the provider in messages: `OpenAI`, `DeepSeek`, `compatible model "local"`. */
  readonly providerLabel: string;
  readonly baseURL?: string | undefined;
  readonly baseURLVariable?: string;
  readonly defaultBaseURL?: string;
  readonly apiKey?: string | undefined;
  readonly keyVariable?: string;
  /** When true, a missing key is an `AuthError` naming `keyVariable`. */
  readonly keyRequired: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface EndpointSettings {
  /** Without a trailing slash. */
  readonly baseURL: string;
  readonly apiKey: string | undefined;
  /** The variable the key was read from; undefined when it was passed in or there is none. */
  readonly keyVariable: string | undefined;
}

/** Resolves a provider endpoint; a missing key or base URL says which variable or setting to fix. */
export function resolveEndpointSettings(input: EndpointSettingsInput): EndpointSettings {
  const fromEnv = input.baseURLVariable === undefined ? undefined : nonEmpty(input.env[input.baseURLVariable]);
  const baseURL = nonEmpty(input.baseURL) ?? fromEnv ?? input.defaultBaseURL;
  const where =
    input.baseURLVariable === undefined
      ? 'the configured baseURL'
      : `${input.baseURLVariable} or the configured baseURL`;
  if (baseURL === undefined) {
    throw new InvalidInputError({ message: `${input.providerLabel} has no base URL; set ${where}.` });
  }
  if (!/^https?:\/\/[^/]/.test(baseURL)) {
    throw new InvalidInputError({
      message: `${input.providerLabel} base URL "${baseURL}" is not an http(s) URL; fix ${where}.`,
    });
  }
  const passed = nonEmpty(input.apiKey);
  const fromKeyVariable = input.keyVariable === undefined ? undefined : nonEmpty(input.env[input.keyVariable]);
  const apiKey = passed ?? fromKeyVariable;
  if (apiKey === undefined && input.keyRequired) {
    const variable = input.keyVariable ?? 'an API key variable';
    throw new AuthError({
      message: `No ${input.providerLabel} API key: ${variable} is not set. Export ${variable} or configure an apiKey for this model.`,
      ...(input.keyVariable === undefined ? {} : { variable: input.keyVariable }),
    });
  }
  return {
    baseURL: baseURL.replace(/\/+$/, ''),
    apiKey,
    keyVariable: passed === undefined && fromKeyVariable !== undefined ? input.keyVariable : undefined,
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim().length === 0 ? undefined : value.trim();
}
