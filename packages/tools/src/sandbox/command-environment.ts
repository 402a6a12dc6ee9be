import { isSecretName } from '@forge/core/redaction';
import { COMMAND_MARKER_VARIABLE } from '../command-processes.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/** Variables every confined command gets from Forge's environment, when set. */
const ALLOWED_VARIABLES: ReadonlySet<string> = new Set(['PATH', 'LANG', 'TERM', 'TZ']);

/**
 * Whether `name` may never reach a command: a name Forge's secret rules match (`OPENAI_API_KEY`,
 * `DB_PASSWORD`, `GITHUB_TOKEN`), one the user declared secret, or Forge's own marker (set afresh).
 */
export function isWithheldVariable(name: string, secretNames: ReadonlySet<string>): boolean {
  return isSecretName(name) || secretNames.has(name) || name === COMMAND_MARKER_VARIABLE;
}

export interface CommandEnvironmentOptions {
  /** Forge's own environment. */
  readonly source: Environment;
  /**
   * `allow-list`: `PATH`, `LANG`, `LC_*`, `TERM`, `TZ` and the names in `pass`, with `HOME` and
   * `TMPDIR` set to the command's own directories. `inherit` (sandbox off, or a call approved to
   * leave it): everything Forge has.
   */
  readonly policy: 'allow-list' | 'inherit';
  readonly pass: readonly string[];
  /** Variables the user declared secret (`secrets.env`, API key variables of configured servers). */
  readonly secretNames: readonly string[];
  /** `HOME` and `TMPDIR` of an allow-listed command. */
  readonly home?: string;
  readonly temporaryDirectory?: string;
}

/** The environment of one command. Secret-named variables never pass, under either policy. */
export function commandEnvironment(options: CommandEnvironmentOptions): Record<string, string> {
  const secretNames = new Set(options.secretNames);
  const pass = new Set(options.pass);
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.source)) {
    if (value === undefined || isWithheldVariable(name, secretNames)) continue;
    if (options.policy === 'inherit' || ALLOWED_VARIABLES.has(name) || name.startsWith('LC_') || pass.has(name))
      environment[name] = value;
  }
  if (options.policy === 'allow-list') {
    if (options.home !== undefined) environment['HOME'] = options.home;
    if (options.temporaryDirectory !== undefined) environment['TMPDIR'] = options.temporaryDirectory;
  }
  return environment;
}
