import path from 'node:path';
import {
  checkCombinations,
  ConfigError,
  loadConfig,
  mergeLayers,
  parseConfigText,
  projectConfigPath,
  readConfigText,
  userConfigPath,
  type ConfigIssue,
  type ConfigLayer,
  type Layer,
  type LoadedConfig,
} from '@forge/config';
import { configuredModelResolver } from '../agent/agent-setup.js';
import { UsageError } from '../cli-error.js';
import { configDirectories, configUsageError, flagLayer } from '../config/cli-config.js';
import { ConfiguredModelError, configuredModelError, type ModelReference } from '../config/configured-model-error.js';
import { jsonValueOffsets, locateJsonPath } from '../config/json-locations.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { styleFor, type Style } from '../output/style.js';
import type { ConfigValidateOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/** What checking one file found. */
type FileCheck =
  | { readonly file: string; readonly kind: 'missing' }
  | { readonly file: string; readonly kind: 'valid'; readonly values: ConfigLayer; readonly text: string }
  | { readonly file: string; readonly kind: 'invalid'; readonly problems: readonly string[] };

/** `file:line:column: path: message`, the form editors and terminals link to. */
function describeIssue(file: string, text: string, issue: ConfigIssue, offsets: () => Map<string, number>): string {
  const location =
    issue.line === undefined
      ? locateJsonPath(text, issue.path, offsets())
      : { line: issue.line, column: issue.column ?? 1 };
  const where = location === undefined ? file : `${file}:${location.line}:${location.column}`;
  return `${where}: ${issue.path === '' ? '' : `${issue.path}: `}${issue.message}`;
}

async function checkFile(file: string): Promise<FileCheck> {
  let text: string | undefined;
  try {
    text = await readConfigText(file);
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    return { file, kind: 'invalid', problems: error.issues.map((issue) => `${file}: ${issue.message}`) };
  }
  if (text === undefined) return { file, kind: 'missing' };
  try {
    const { schemaVersion: _version, $schema: _schema, ...values } = parseConfigText(text, file);
    return { file, kind: 'valid', values, text };
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    let offsets: Map<string, number> | undefined;
    const source = text;
    const lazyOffsets = () => (offsets ??= jsonValueOffsets(source));
    return {
      file,
      kind: 'invalid',
      problems: error.issues.map((issue) => describeIssue(file, source, issue, lazyOffsets)),
    };
  }
}

/** A problem of the files combined (or of one file over the defaults): where it is, the key, why. */
interface CombinedProblem {
  /** The file or environment variable holding the value, as `ConfigError.source` names it. */
  readonly source: string;
  readonly path: string;
  readonly message: string;
}

/** The model ids the configuration names that a command resolves: the default model and, for model-structured, the compactor. */
function modelReferences(loaded: LoadedConfig): ModelReference[] {
  const { config, provenance } = loaded;
  const references: ModelReference[] = [];
  if (config.model !== undefined) references.push({ key: 'model', value: config.model, provenance: provenance.model });
  const key = 'context.compaction.model';
  if (config.compaction.strategy === 'model-structured' && config.compaction.model !== undefined)
    references.push({ key, value: config.compaction.model, provenance: provenance[key] });
  return references;
}

/**
 * What every command checks after reading the files: the combinations of values (`loadConfig`'s
 * cross-field rules) and each configured model id, resolved as a command resolves it but only
 * to measure, so a missing API key is not reported (it is no fault of the file).
 */
async function combinedProblems(load: () => Promise<LoadedConfig>, io: CliIo): Promise<CombinedProblem[]> {
  let loaded: LoadedConfig;
  try {
    loaded = await load();
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw configUsageError(error);
    return error.issues.map((issue) => ({ source: error.source, path: issue.path, message: issue.message }));
  }
  const resolve = configuredModelResolver({ io, loaded, purpose: 'measure' });
  const problems: CombinedProblem[] = [];
  for (const reference of modelReferences(loaded)) {
    try {
      await resolve(reference.value);
    } catch (error) {
      const located = configuredModelError(error, reference);
      if (!(located instanceof ConfiguredModelError)) throw located;
      const origin = reference.provenance;
      problems.push({
        source: origin?.file ?? origin?.variable ?? 'the configuration',
        path: reference.key,
        message: located.reason,
      });
    }
  }
  return problems;
}

/** The checks with each combined problem added to the file it is in; problems of no checked file (a variable) come back apart. */
function withProblems(
  checks: readonly FileCheck[],
  problems: readonly CombinedProblem[],
): { readonly checks: FileCheck[]; readonly elsewhere: readonly CombinedProblem[] } {
  const located = checks.map((check): FileCheck => {
    const own = problems.filter((problem) => problem.source === check.file);
    if (check.kind !== 'valid' || own.length === 0) return check;
    let offsets: Map<string, number> | undefined;
    const lazyOffsets = () => (offsets ??= jsonValueOffsets(check.text));
    return {
      file: check.file,
      kind: 'invalid',
      problems: own.map((problem) => describeIssue(check.file, check.text, problem, lazyOffsets)),
    };
  });
  const files = new Set(checks.map((check) => check.file));
  return { checks: located, elsewhere: problems.filter((problem) => !files.has(problem.source)) };
}

function report(check: FileCheck, io: CliIo, style: Style): void {
  if (check.kind === 'valid') io.stdout.write(`${style.green('valid')}    ${check.file}\n`);
  if (check.kind === 'invalid') {
    io.stdout.write(`${style.red('invalid')}  ${check.file}\n`);
    for (const problem of check.problems) io.stdout.write(`  ${problem}\n`);
  }
}

function reportElsewhere(problems: readonly CombinedProblem[], io: CliIo, style: Style): void {
  for (const problem of problems) {
    io.stdout.write(`${style.red('invalid')}  ${problem.source}\n`);
    io.stdout.write(`  ${problem.source}: ${problem.path === '' ? '' : `${problem.path}: `}${problem.message}\n`);
  }
}

/**
 * `forge config validate [FILE]`: checks one configuration file, or without FILE the user file
 * (FORGE_HOME/config.json) and the project file (.forge/config.json), with everything a command
 * checks: the schema, then the values combined (with the environment and flags, as a command
 * combines them) and the model ids they name. Each problem is printed as
 * `file:line:column: path: message`; project values that would not apply (looser than the
 * user's limits) are listed as warnings. Exit 0 when every file is valid, 1 when one is not, 2
 * when the named FILE does not exist.
 */
export async function execute({ args, options, io }: CommandInvocation<ConfigValidateOptions>): Promise<number> {
  const style = styleFor(io.stdout, io.env);
  const named = typeof args[0] === 'string' ? path.resolve(io.cwd, args[0]) : undefined;
  if (named !== undefined) return validateNamedFile(named, io, style);

  const { forgeHome, workspaceRoot } = configDirectories({ io, globals: options });
  const files = [userConfigPath(forgeHome), projectConfigPath(workspaceRoot)].filter(
    (file, index, all) => all.indexOf(file) === index,
  );
  const read = await Promise.all(files.map(checkFile));
  const flags = flagLayer(options);
  const problems = read.some((check) => check.kind === 'invalid')
    ? []
    : await combinedProblems(() => loadConfig({ forgeHome, workspaceRoot, env: io.env, flags }), io);
  const { checks, elsewhere } = withProblems(read, problems);
  if (checks.every((check) => check.kind === 'missing') && elsewhere.length === 0) {
    io.stdout.write(
      `No configuration files: ${files.join(' and ')} do not exist; the defaults apply ('forge config show' lists them).\n`,
    );
    return ExitCode.ok;
  }
  for (const check of checks) {
    if (check.kind === 'missing') io.stdout.write(`${style.dim('absent')}   ${check.file}\n`);
    else report(check, io, style);
  }
  reportElsewhere(elsewhere, io, style);
  if (elsewhere.length > 0 || checks.some((check) => check.kind === 'invalid')) return ExitCode.failure;

  const layers = checks.flatMap((check, index): Layer[] =>
    check.kind === 'valid'
      ? [{ source: index === 0 ? 'user' : 'project', values: check.values, file: check.file }]
      : [],
  );
  for (const warning of mergeLayers(layers).warnings) io.stdout.write(`${style.yellow(`warning: ${warning}`)}\n`);
  return ExitCode.ok;
}

/** One named file, as if it were the only (user) configuration: its schema, its combinations and its model ids. */
async function validateNamedFile(file: string, io: CliIo, style: Style): Promise<number> {
  const read = await checkFile(file);
  if (read.kind === 'missing')
    throw new UsageError(
      `${file} does not exist; give the path of a configuration file, or no path to check the user and project files`,
    );
  const problems =
    read.kind === 'valid'
      ? await combinedProblems(async () => {
          const merged = mergeLayers([{ source: 'user', values: read.values, file }]);
          checkCombinations(merged);
          return { ...merged, files: { user: file, project: file } };
        }, io)
      : [];
  const { checks } = withProblems([read], problems);
  const check = checks[0] ?? read;
  report(check, io, style);
  return check.kind === 'valid' ? ExitCode.ok : ExitCode.failure;
}
