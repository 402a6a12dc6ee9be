import path from 'node:path';
import { ConfigError, loadConfig, type ConfigLayer, type LoadedConfig } from '@forge/config';
import { InvalidInputError } from '@forge/core';
import { checkForgeHome, resolveForgeHome } from '@forge/persistence';
import { UsageError } from '../cli-error.js';
import type { GlobalOptions } from '../commands/command.js';
import type { CliIo } from '../io.js';
import { parseModelIdentifier } from '../models/resolve-model.js';

/** The configuration of one invocation and the two directories it was read for. */
export interface CliConfig {
  /** FORGE_HOME: `--forge-home`, else `$FORGE_HOME`, else `~/.forge`. The user file is `config.json` in it. */
  readonly forgeHome: string;
  /** `--cwd` resolved against the working directory; the project file is `.forge/config.json` in it. */
  readonly workspaceRoot: string;
  readonly loaded: LoadedConfig;
}

/** Which command-line flag sets each configuration path (the flag layer's provenance). */
export const FLAG_FOR_PATH: Readonly<Record<string, string>> = {
  model: '--model',
  'approval.profile': '--approval',
  'context.mode': '--context-mode',
  'sandbox.mode': '--sandbox',
};

/** One load per invocation: the program parses a fresh options object for every command it runs. */
const loads = new WeakMap<object, Promise<CliConfig>>();

/**
 * The flags layer: `--model`, `--approval`, `--context-mode` and `--sandbox`. A malformed model id is reported
 * here with the same message `--model` always gave.
 */
export function flagLayer(globals: GlobalOptions): ConfigLayer {
  const layer: { -readonly [K in keyof ConfigLayer]: ConfigLayer[K] } = {};
  if (globals.model !== undefined) {
    parseModelIdentifier(globals.model);
    layer.model = globals.model;
  }
  if (globals.approval !== undefined) layer.approval = { profile: globals.approval };
  if (globals.contextMode !== undefined) layer.context = { mode: globals.contextMode };
  if (globals.sandbox !== undefined) layer.sandbox = { mode: globals.sandbox };
  return layer;
}

/** FORGE_HOME and the workspace directory of an invocation, before anything is read. */
export function configDirectories(options: { readonly io: CliIo; readonly globals: GlobalOptions }): {
  forgeHome: string;
  workspaceRoot: string;
} {
  const { io, globals } = options;
  const flag = globals.forgeHome;
  return {
    forgeHome: resolveForgeHome({ flag, env: io.env, cwd: io.cwd }),
    workspaceRoot: path.resolve(io.cwd, globals.cwd ?? '.'),
  };
}

/**
 * Loads the configuration once per invocation (defaults < user file < project file < environment
 * < flags). Invalid configuration is a usage error (exit 2) naming the file, the path of each
 * problem and, for bad JSON, its line and column. Project values that were looser than the limits
 * in force are printed once on stderr as warnings, unless `quiet`.
 */
export function loadCliConfig(options: {
  readonly io: CliIo;
  readonly globals: GlobalOptions;
  readonly quiet?: boolean;
}): Promise<CliConfig> {
  const cached = loads.get(options.globals);
  if (cached !== undefined) return cached;
  const loading = load(options);
  loads.set(options.globals, loading);
  return loading;
}

async function load(options: {
  readonly io: CliIo;
  readonly globals: GlobalOptions;
  readonly quiet?: boolean;
}): Promise<CliConfig> {
  const { io, globals } = options;
  const directories = configDirectories({ io, globals });
  let loaded: LoadedConfig;
  // A home that is a file would otherwise be reported as an unreadable config.json.
  await checkForgeHome(directories.forgeHome);
  try {
    loaded = await loadConfig({ ...directories, env: io.env, flags: flagLayer(globals) });
  } catch (error) {
    throw configUsageError(error);
  }
  if (options.quiet !== true) {
    for (const warning of loaded.warnings) io.stderr.write(`forge: warning: ${warning}\n`);
  }
  return { ...directories, loaded };
}

/** A `ConfigError` as the CLI's one-line usage error (exit 2); anything else unchanged. */
export function configUsageError(error: unknown): unknown {
  if (ConfigError.isInstance(error))
    return new UsageError(`${error.message.replace(/\.$/, '')}; fix it and check with 'forge config validate'`);
  if (InvalidInputError.isInstance(error)) return new UsageError(error.message);
  return error;
}
