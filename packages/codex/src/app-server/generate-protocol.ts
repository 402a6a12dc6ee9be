import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveCodexBinary } from './binary.js';

export interface GeneratedProtocol {
  /** Directory holding the TypeScript bindings (`generate-ts`). */
  readonly typescriptDirectory: string;
  /** Directory holding the JSON Schemas (`generate-json-schema`). */
  readonly jsonSchemaDirectory: string;
}

/**
 * Asks the installed Codex binary to print its App Server protocol as TypeScript bindings and JSON
 * Schemas under `outDirectory` (`ts/` and `schema/`). Forge reads the protocol from these instead
 * of copying it by hand; `CODEX_HOME` points at `codexHome` so nothing is written to `~/.codex`.
 */
export async function generateProtocol(options: {
  readonly outDirectory: string;
  readonly codexHome: string;
  readonly binaryPath?: string;
}): Promise<GeneratedProtocol> {
  const binary = resolveCodexBinary(options.binaryPath === undefined ? {} : { binaryPath: options.binaryPath });
  const run = promisify(execFile);
  const env = { ...process.env, CODEX_HOME: options.codexHome };
  const typescriptDirectory = join(options.outDirectory, 'ts');
  const jsonSchemaDirectory = join(options.outDirectory, 'schema');
  await run(binary.path, ['app-server', 'generate-ts', '--out', typescriptDirectory], { env });
  await run(binary.path, ['app-server', 'generate-json-schema', '--out', jsonSchemaDirectory], { env });
  return { typescriptDirectory, jsonSchemaDirectory };
}
