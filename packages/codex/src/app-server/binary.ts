import { accessSync, constants, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { CodexBinaryMissingError } from '../errors.js';

/** Environment variable that names the Codex executable to use. */
export const CODEX_BINARY_ENV = 'FORGE_CODEX_BIN';

const platformPackages: Record<string, { readonly packageName: string; readonly target: string }> = {
  'linux-x64': { packageName: '@openai/codex-linux-x64', target: 'x86_64-unknown-linux-musl' },
  'linux-arm64': { packageName: '@openai/codex-linux-arm64', target: 'aarch64-unknown-linux-musl' },
  'darwin-x64': { packageName: '@openai/codex-darwin-x64', target: 'x86_64-apple-darwin' },
  'darwin-arm64': { packageName: '@openai/codex-darwin-arm64', target: 'aarch64-apple-darwin' },
  'win32-x64': { packageName: '@openai/codex-win32-x64', target: 'x86_64-pc-windows-msvc' },
  'win32-arm64': { packageName: '@openai/codex-win32-arm64', target: 'aarch64-pc-windows-msvc' },
};

export interface ResolvedCodexBinary {
  /** Absolute path of the executable to spawn. */
  readonly path: string;
  /** Where the path came from, for error messages and `forge doctor`-style reports. */
  readonly source: 'option' | 'environment' | 'package' | 'path';
}

export interface ResolveCodexBinaryOptions {
  /** An explicit executable path; wins over everything else. */
  readonly binaryPath?: string;
  /** Defaults to `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Finds the Codex executable: an explicit path, then `FORGE_CODEX_BIN`, then the native binary
 * shipped inside the installed `@openai/codex` npm package, then `codex` on `PATH`. Throws
 * `CodexBinaryMissingError` saying what was tried when none of them is an executable file.
 */
export function resolveCodexBinary(options: ResolveCodexBinaryOptions = {}): ResolvedCodexBinary {
  const env = options.env ?? process.env;
  if (options.binaryPath !== undefined) return checked(options.binaryPath, 'option', 'the binaryPath option');
  const fromEnv = env[CODEX_BINARY_ENV];
  if (fromEnv !== undefined && fromEnv.length > 0) return checked(fromEnv, 'environment', `${CODEX_BINARY_ENV}`);
  const fromPackage = binaryFromPackage();
  if (fromPackage !== undefined) return { path: fromPackage, source: 'package' };
  const fromPath = binaryOnPath(env.PATH ?? '');
  if (fromPath !== undefined) return { path: fromPath, source: 'path' };
  throw new CodexBinaryMissingError({
    message:
      'Could not find the Codex CLI: the @openai/codex package is not installed here and no `codex` is on PATH. ' +
      `Install it (npm install -g @openai/codex@0.169.0) or set ${CODEX_BINARY_ENV} to the executable's path.`,
  });
}

function checked(path: string, source: ResolvedCodexBinary['source'], origin: string): ResolvedCodexBinary {
  if (!isExecutable(path)) {
    throw new CodexBinaryMissingError({
      binaryPath: path,
      message: `The Codex executable named by ${origin} (${path}) does not exist or is not executable. Fix the path or install @openai/codex.`,
    });
  }
  return { path, source };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function binaryFromPackage(): string | undefined {
  const platform = platformPackages[`${process.platform}-${process.arch}`];
  if (platform === undefined) return undefined;
  try {
    const require = createRequire(import.meta.url);
    const codexManifest = realpathSync(require.resolve('@openai/codex/package.json'));
    const platformManifest = createRequire(codexManifest).resolve(`${platform.packageName}/package.json`);
    const executable = process.platform === 'win32' ? 'codex.exe' : 'codex';
    const candidate = join(dirname(platformManifest), 'vendor', platform.target, 'bin', executable);
    return isExecutable(candidate) ? candidate : undefined;
  } catch {
    return undefined;
  }
}

function binaryOnPath(searchPath: string): string | undefined {
  const names = process.platform === 'win32' ? ['codex.exe', 'codex.cmd'] : ['codex'];
  for (const directory of searchPath.split(delimiter)) {
    if (directory.length === 0) continue;
    for (const name of names) {
      const candidate = join(directory, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}
