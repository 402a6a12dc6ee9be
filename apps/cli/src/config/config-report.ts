import { priceEntrySchema, type ForgeConfig, type ValueProvenance } from '@forge/config';
import type { JsonValue } from '@forge/core';
import { describePrices } from '@forge/core/pricing';
import { describeSandbox } from '../agent/command-sandbox.js';
import type { SandboxStatus } from '@forge/tools';
import { DEFAULT_MODEL } from '../models/resolve-model.js';
import type { Style } from '../output/style.js';
import { FLAG_FOR_PATH, type CliConfig } from './cli-config.js';

/** Shown instead of header and MCP `env` values, which often hold credentials. */
export const MASKED = '***';

/** One effective value and where it came from. */
export interface ConfigEntry {
  /** Dotted path, e.g. `context.bufferTokens`. */
  readonly path: string;
  readonly value: JsonValue;
  readonly source: ValueProvenance['source'];
  readonly file?: string;
  readonly variable?: string;
  readonly flag?: string;
}

/** What `forge config show` prints, and its `--json` document as it is. */
export interface ConfigReport {
  readonly files: { readonly user: ConfigFileState; readonly project: ConfigFileState };
  readonly values: readonly ConfigEntry[];
  /** The sandbox in force on this machine: what enforces `sandbox.mode` here, or nothing and why. */
  readonly sandbox: { readonly inForce: string; readonly enforcement: SandboxStatus['enforcement'] };
  readonly warnings: readonly string[];
}

export interface ConfigFileState {
  readonly path: string;
  readonly exists: boolean;
}

function masked(values: Readonly<Record<string, string>> | undefined): Record<string, string> | undefined {
  return values === undefined ? undefined : Object.fromEntries(Object.keys(values).map((key) => [key, MASKED]));
}

/** Header values written in the file are masked; those read from a variable show the variable's name. */
function maskedHeaders(
  headers:
    | Readonly<Record<string, string | { readonly env: string; readonly prefix?: string | undefined }>>
    | undefined,
): Record<string, unknown> | undefined {
  if (headers === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, typeof value === 'string' ? MASKED : value]),
  );
}

/** The effective values in display order, credentials masked. */
function effectiveValues(config: ForgeConfig): [string, JsonValue][] {
  const models = config.models.map(
    (entry) => JSON.parse(JSON.stringify({ ...entry, headers: masked(entry.headers) })) as JsonValue,
  );
  const servers = config.mcpServers.map(
    (entry) =>
      JSON.parse(
        JSON.stringify({ ...entry, env: masked(entry.env), headers: maskedHeaders(entry.headers) }),
      ) as JsonValue,
  );
  return [
    ['model', config.model ?? DEFAULT_MODEL],
    ['approval.profile', config.approval.profile],
    ['secrets.env', [...config.secrets.env]],
    ['sandbox.mode', config.sandbox.mode],
    ['sandbox.network', config.sandbox.network],
    ['sandbox.env', [...config.sandbox.env]],
    ['models', models],
    ['mcpServers', servers],
    ...priceValues(config),
    ...Object.entries(config.context).map(([field, value]): [string, JsonValue] => [
      `context.${field}`,
      value as JsonValue,
    ]),
    ...Object.entries(config.contextTools).map(([field, value]): [string, JsonValue] => [`context.${field}`, value]),
    ['context.compaction.strategy', config.compaction.strategy],
    ['context.compaction.model', config.compaction.model ?? null],
    ['context.providerNative.persist', config.providerNative.persist],
    ['anthropic.cacheLifetime', config.anthropic.cacheLifetime],
  ];
}

/** One row per priced model (`prices.openai:gpt-5.1`), or `prices (none)`. */
function priceValues(config: ForgeConfig): [string, JsonValue][] {
  const entries = Object.entries(config.prices);
  if (entries.length === 0) return [['prices', []]];
  return entries.map(([id, entry]): [string, JsonValue] => [
    `prices.${id}`,
    JSON.parse(JSON.stringify(entry)) as JsonValue,
  ]);
}

/** The report of a loaded configuration; `exists` says which of the two files were found. */
export function buildConfigReport(
  cli: CliConfig,
  exists: { readonly user: boolean; readonly project: boolean },
  sandbox: SandboxStatus,
): ConfigReport {
  const { loaded } = cli;
  const values = effectiveValues(loaded.config).map(([path, value]): ConfigEntry => {
    const provenance = loaded.provenance[path] ?? { source: 'default' as const };
    return {
      path,
      value,
      source: provenance.source,
      ...(provenance.file === undefined ? {} : { file: provenance.file }),
      ...(provenance.variable === undefined ? {} : { variable: provenance.variable }),
      ...(provenance.source === 'flag' && FLAG_FOR_PATH[path] !== undefined ? { flag: FLAG_FOR_PATH[path] } : {}),
    };
  });
  return {
    files: {
      user: { path: loaded.files.user, exists: exists.user },
      project: { path: loaded.files.project, exists: exists.project },
    },
    values,
    sandbox: { inForce: describeSandbox(sandbox), enforcement: sandbox.enforcement },
    warnings: loaded.warnings,
  };
}

/** `default`, `user <file>`, `project <file>`, `env <VARIABLE>` or `flag <--flag>`. */
export function describeSource(entry: ConfigEntry): string {
  const detail = entry.file ?? entry.variable ?? entry.flag;
  return detail === undefined ? entry.source : `${entry.source} ${detail}`;
}

function describeValue(value: JsonValue): string {
  if (value === null) return '(none)';
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    return value
      .map((item) =>
        typeof item === 'object' && item !== null && !Array.isArray(item) && typeof item['name'] === 'string'
          ? describeNamed(item)
          : String(item),
      )
      .join(', ');
  }
  const prices = priceEntrySchema.safeParse(value);
  if (prices.success) return describePrices(prices.data);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function describeNamed(item: { readonly [key: string]: JsonValue | undefined }): string {
  if (typeof item['baseURL'] === 'string')
    return `${String(item['name'])} (${String(item['modelId'])} at ${item['baseURL']})`;
  if (typeof item['url'] === 'string') {
    const headers = (item['headers'] ?? {}) as Readonly<Record<string, { readonly env?: unknown } | string>>;
    const fromEnvironment = Object.entries(headers).flatMap(([name, value]) =>
      typeof value === 'object' && typeof value.env === 'string' ? [`${name} from $${value.env}`] : [],
    );
    return `${String(item['name'])} (${item['url']}${fromEnvironment.length === 0 ? '' : `; ${fromEnvironment.join(', ')}`})`;
  }
  const argv = [item['command'], ...(Array.isArray(item['args']) ? item['args'] : [])].map(String).join(' ');
  return `${String(item['name'])} (${argv})`;
}

/** The text form: the two files, then one row per value with its source, then warnings. */
export function renderConfigReport(report: ConfigReport, style: Style): string {
  const fileLine = (label: string, state: ConfigFileState) =>
    `  ${label.padEnd(8)} ${state.path}${state.exists ? '' : style.dim('  (not found)')}`;
  const rows = report.values.map((entry) => [entry.path, describeValue(entry.value), describeSource(entry)] as const);
  const pathWidth = Math.max(...rows.map(([path]) => path.length));
  const valueWidth = Math.min(40, Math.max(...rows.map(([, value]) => value.length)));
  const lines = [
    style.bold('Configuration files'),
    fileLine('user', report.files.user),
    fileLine('project', report.files.project),
    '',
    style.bold(`${'key'.padEnd(pathWidth)}  ${'value'.padEnd(valueWidth)}  source`),
    ...rows.map(([path, value, source]) => {
      const shownSource = source === 'default' ? style.dim(source) : source;
      // A value wider than its column gets the row to itself; its source follows in the source column.
      if (value.length > valueWidth)
        return `${path.padEnd(pathWidth)}  ${value}\n${' '.repeat(pathWidth + 2 + valueWidth)}  ${shownSource}`;
      return `${path.padEnd(pathWidth)}  ${value.padEnd(valueWidth)}  ${shownSource}`;
    }),
  ];
  lines.push('', `${style.bold('Sandbox in force')}  ${report.sandbox.inForce}`);
  if (report.warnings.length > 0)
    lines.push('', style.bold('Warnings'), ...report.warnings.map((warning) => style.yellow(`  ${warning}`)));
  return `${lines.join('\n')}\n`;
}
