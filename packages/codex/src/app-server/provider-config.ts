import { InvalidInputError } from '@forge/core';

/**
 * `-c` overrides that point Codex at a model provider reached over the Responses API, for example
 * a local server. Values are written as TOML strings; `name` decides Codex behaviour (a provider
 * named `OpenAI` gets remote compaction).
 */
export function responsesProviderOverrides(options: {
  readonly id: string;
  readonly name: string;
  readonly baseUrl: string;
  readonly model: string;
}): string[] {
  if (!/^[A-Za-z0-9_-]+$/.test(options.id))
    throw new InvalidInputError({
      message: `Codex provider id ${JSON.stringify(options.id)} must use only A–Z, a–z, 0–9, "_" or "-".`,
    });
  return [
    `model=${tomlString(options.model)}`,
    `model_provider=${tomlString(options.id)}`,
    `model_providers.${options.id}={name=${tomlString(options.name)},base_url=${tomlString(options.baseUrl)},wire_api="responses"}`,
  ];
}

function tomlString(value: string): string {
  return JSON.stringify(value);
}
