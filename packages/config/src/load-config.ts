import { join } from 'node:path';
import { describeRefusal, readRegularFile } from '@forge/bounded-read';
import { resolveContextPolicy } from '@forge/core';
import { ConfigError } from './config-error.js';
import { readEnvironmentLayer, type Environment } from './environment.js';
import { mergeLayers, type ForgeConfig, type Layer, type ValueProvenance } from './merge.js';
import { flagLayerSchema, type ConfigLayer } from './schema.js';
import { parseConfigText, zodIssues } from './validate.js';

export interface LoadConfigOptions {
  /** Forge's home directory; user configuration is `<forgeHome>/config.json`. */
  readonly forgeHome: string;
  /** The workspace; project configuration is `<workspaceRoot>/.forge/config.json`. */
  readonly workspaceRoot: string;
  /** Default: `process.env`. */
  readonly env?: Environment;
  /** Values from command-line flags, in the shape of the file (without `schemaVersion`). */
  readonly flags?: ConfigLayer;
}

export interface LoadedConfig {
  readonly config: ForgeConfig;
  /** Dotted path → source of the value (`default`, `user`, `project`, `env`, `flag`) and its file or variable. */
  readonly provenance: Readonly<Record<string, ValueProvenance>>;
  /** Project values that were looser than the limits in force and were not applied. */
  readonly warnings: readonly string[];
  /** The two files consulted, whether or not they exist. */
  readonly files: { readonly user: string; readonly project: string };
}

export function userConfigPath(forgeHome: string): string {
  return join(forgeHome, 'config.json');
}

export function projectConfigPath(workspaceRoot: string): string {
  return join(workspaceRoot, '.forge', 'config.json');
}

/** The largest configuration file Forge reads; real ones are a few KiB. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/**
 * The text of a configuration file, `undefined` when it does not exist. Only a regular file of at
 * most `MAX_CONFIG_FILE_BYTES` is read (a symbolic link to one is followed): a FIFO, a device or a
 * huge file is a `ConfigError` at once, never a hang or a read without end.
 */
export async function readConfigText(file: string): Promise<string | undefined> {
  let read;
  try {
    read = await readRegularFile(file, { maxBytes: MAX_CONFIG_FILE_BYTES });
  } catch (error) {
    throw new ConfigError(file, [{ path: '', message: `cannot be read (${(error as Error).message})` }]);
  }
  if (read.kind === 'missing') return undefined;
  if (read.kind !== 'read') {
    throw new ConfigError(file, [
      {
        path: '',
        message: `cannot be used: ${describeRefusal('it', read)}; a configuration file must be a regular JSON file`,
      },
    ]);
  }
  return read.bytes.toString('utf8');
}

/** Reads and checks one configuration file; `undefined` when it does not exist. */
export async function readConfigFile(file: string): Promise<ConfigLayer | undefined> {
  const text = await readConfigText(file);
  if (text === undefined) return undefined;
  const { schemaVersion: _version, $schema: _schema, ...values } = parseConfigText(text, file);
  return values;
}

/**
 * The effective configuration: defaults < user file < project file < environment < flags, with
 * the provenance of every value. Project configuration may only tighten (see `mergeLayers`).
 * Throws `ConfigError` for unreadable JSON (with line and column), unknown keys (with their path)
 * and values of the wrong type.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const files = { user: userConfigPath(options.forgeHome), project: projectConfigPath(options.workspaceRoot) };
  const layers: Layer[] = [];
  const user = await readConfigFile(files.user);
  if (user !== undefined) layers.push({ source: 'user', values: user, file: files.user });
  // A workspace that is Forge's home has one file, read once, as user configuration.
  if (files.project !== files.user) {
    const project = await readConfigFile(files.project);
    if (project !== undefined) layers.push({ source: 'project', values: project, file: files.project });
  }
  const environment = readEnvironmentLayer(options.env ?? process.env);
  layers.push({ source: 'env', values: environment.layer, variables: environment.variables });
  if (options.flags !== undefined) {
    const flags = flagLayerSchema.safeParse(options.flags);
    if (!flags.success) throw new ConfigError('the command-line flags', zodIssues(flags.error));
    layers.push({ source: 'flag', values: flags.data });
  }
  const merged = mergeLayers(layers);
  checkCombinations(merged);
  return { ...merged, files };
}

/**
 * Re-checks combinations of values that were each valid alone, with core's own rules. The error
 * names the file (or variable) and the key of the value that made the combination invalid: the
 * one from the layer of highest precedence.
 */
export function checkCombinations(merged: ReturnType<typeof mergeLayers>): void {
  try {
    resolveContextPolicy(merged.config.context);
  } catch (error) {
    const where = (field: string) => sourceOf(merged.provenance[`context.${field}`]);
    const message = `${error instanceof Error ? error.message : String(error)} (compactAtRatio from ${where('compactAtRatio')}, compactTargetRatio from ${where('compactTargetRatio')})`;
    const key = latestOf(merged, ['context.compactAtRatio', 'context.compactTargetRatio']);
    throw new ConfigError(originOf(merged.provenance[key]), [{ path: key, message }]);
  }
  const { compaction } = merged.config;
  if (compaction.strategy === 'model-structured' && compaction.model === undefined) {
    const key = 'context.compaction.strategy';
    const message =
      'is model-structured but no context.compaction.model names the compactor: ' +
      'add "model": "<provider>:<id>" beside it in your user configuration (a compactor is never chosen for you), or choose forge-state';
    throw new ConfigError(originOf(merged.provenance[key]), [{ path: key, message }]);
  }
}

const PRECEDENCE: readonly ValueProvenance['source'][] = ['default', 'user', 'project', 'env', 'flag'];

/** Of `keys`, the one whose value came from the layer of highest precedence (the last one on a tie). */
function latestOf(merged: ReturnType<typeof mergeLayers>, keys: readonly [string, ...string[]]): string {
  const rank = (key: string) => PRECEDENCE.indexOf(merged.provenance[key]?.source ?? 'default');
  return keys.reduce((latest, key) => (rank(key) >= rank(latest) ? key : latest));
}

/** The file or variable a value came from, as a `ConfigError` source. */
function originOf(provenance: ValueProvenance | undefined): string {
  if (provenance === undefined || provenance.source === 'default') return 'the defaults';
  if (provenance.source === 'flag') return 'the command-line flags';
  return provenance.file ?? provenance.variable ?? `the ${provenance.source} configuration`;
}

function sourceOf(provenance: ValueProvenance | undefined): string {
  if (provenance === undefined || provenance.source === 'default') return 'the default';
  return provenance.file ?? provenance.variable ?? `the ${provenance.source}`;
}
