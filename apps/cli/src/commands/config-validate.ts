import path from 'node:path';
import {
  ConfigError,
  mergeLayers,
  parseConfigText,
  projectConfigPath,
  readConfigText,
  userConfigPath,
  type ConfigIssue,
  type ConfigLayer,
  type Layer,
} from '@forge/config';
import { UsageError } from '../cli-error.js';
import { configDirectories } from '../config/cli-config.js';
import { jsonValueOffsets, locateJsonPath } from '../config/json-locations.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { styleFor, type Style } from '../output/style.js';
import type { ConfigValidateOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/** What checking one file found. */
type FileCheck =
  | { readonly file: string; readonly kind: 'missing' }
  | { readonly file: string; readonly kind: 'valid'; readonly values: ConfigLayer }
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
    return { file, kind: 'valid', values };
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

function report(check: FileCheck, io: CliIo, style: Style): void {
  if (check.kind === 'valid') io.stdout.write(`${style.green('valid')}    ${check.file}\n`);
  if (check.kind === 'invalid') {
    io.stdout.write(`${style.red('invalid')}  ${check.file}\n`);
    for (const problem of check.problems) io.stdout.write(`  ${problem}\n`);
  }
}

/**
 * `forge config validate [FILE]`: checks one configuration file, or without FILE the user file
 * (FORGE_HOME/config.json) and the project file (.forge/config.json), against the schema. Each
 * problem is printed as `file:line:column: path: message`; project values that would not apply
 * (looser than the user's limits) are listed as warnings. Exit 0 when every file is valid, 1 when
 * one is not, 2 when the named FILE does not exist.
 */
export async function execute({ args, options, io }: CommandInvocation<ConfigValidateOptions>): Promise<number> {
  const style = styleFor(io.stdout, io.env);
  const named = typeof args[0] === 'string' ? path.resolve(io.cwd, args[0]) : undefined;
  if (named !== undefined) {
    const check = await checkFile(named);
    if (check.kind === 'missing')
      throw new UsageError(
        `${named} does not exist; give the path of a configuration file, or no path to check the user and project files`,
      );
    report(check, io, style);
    return check.kind === 'valid' ? ExitCode.ok : ExitCode.failure;
  }

  const { forgeHome, workspaceRoot } = configDirectories({ io, globals: options });
  const files = [userConfigPath(forgeHome), projectConfigPath(workspaceRoot)].filter(
    (file, index, all) => all.indexOf(file) === index,
  );
  const checks = await Promise.all(files.map(checkFile));
  if (checks.every((check) => check.kind === 'missing')) {
    io.stdout.write(
      `No configuration files: ${files.join(' and ')} do not exist; the defaults apply ('forge config show' lists them).\n`,
    );
    return ExitCode.ok;
  }
  for (const check of checks) {
    if (check.kind === 'missing') io.stdout.write(`${style.dim('absent')}   ${check.file}\n`);
    else report(check, io, style);
  }
  if (checks.some((check) => check.kind === 'invalid')) return ExitCode.failure;

  const layers = checks.flatMap((check, index): Layer[] =>
    check.kind === 'valid'
      ? [{ source: index === 0 ? 'user' : 'project', values: check.values, file: check.file }]
      : [],
  );
  for (const warning of mergeLayers(layers).warnings) io.stdout.write(`${style.yellow(`warning: ${warning}`)}\n`);
  return ExitCode.ok;
}
