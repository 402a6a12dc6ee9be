import type { ModelAdapter } from '@forge/core';
import { closestMatch } from '../suggest.js';
import type { CatalogueEntry } from '@forge/agent';

/**
 * The warning for a model id its provider's table does not know (`openai:gpt-5.l`): Forge then
 * runs on guesses, so say which window and counter it assumes, that costs are not tracked, and
 * the nearest known id. Undefined for a known id, and for providers without a table (scripted,
 * tests): they have nothing to compare against.
 */
export function unknownModelWarning(input: {
  readonly name: string;
  readonly model: ModelAdapter;
  readonly counter: string | undefined;
  readonly catalogue: readonly CatalogueEntry[];
}): string | undefined {
  const { name, model, catalogue } = input;
  if (model.capabilities.source !== 'fallback') return undefined;
  const provider = name.slice(0, name.indexOf(':') + 1);
  const known = catalogue.map((entry) => entry.id).filter((id) => id.startsWith(provider));
  if (known.length === 0) return undefined;
  const window = model.capabilities.contextWindowTokens.toLocaleString('en-US');
  const counter = input.counter === undefined ? '' : ` and counts with ${input.counter}`;
  const costs =
    model.capabilities.prices === undefined
      ? `costs are not tracked (no prices; set "prices" for "${name}" in your user configuration to track them)`
      : 'costs use the configured prices';
  const nearest = closestMatch(name, known);
  const suggestion = nearest === undefined ? '' : `Did you mean ${nearest}? `;
  return (
    `${name} is not a model Forge knows: it assumes a ${window}-token window (context.fallbackContextWindowTokens)${counter}, ` +
    `and ${costs}. ${suggestion}'forge models list' shows the known ids.`
  );
}
