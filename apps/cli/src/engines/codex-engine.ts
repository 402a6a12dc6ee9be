import { CodexBinaryMissingError, CodexVersionError } from '@forge/codex';
import {
  createCodexSessionEngine,
  type CodexSessionEngine,
  type CodexSessionEngineOptions,
} from '@forge/codex/session-engine';
import { UsageError } from '../cli-error.js';
import { forgeVersion } from '../version.js';

export { CODEX_ENGINE_PROMPT } from '@forge/codex/session-engine';

/*
 * The CLI's door to the Codex engine of `@forge/codex/session-engine`: the same engine, told
 * Forge's version, with a failure to find or start Codex reported as a usage error.
 * `prepare-engine.ts` imports it only for Codex turns.
 */

export type CodexEngineOptions = Omit<CodexSessionEngineOptions, 'clientVersion' | 'startError'>;

/**
 * Turns a failure to find or start Codex into the CLI's one-line errors: a missing binary or an
 * untested version is a configuration problem (exit 2); anything else is returned unchanged.
 */
export function codexStartError(error: unknown): unknown {
  if (CodexBinaryMissingError.isInstance(error) || CodexVersionError.isInstance(error))
    return new UsageError(error.message);
  return error;
}

/** The Codex engine for `--engine codex`; a missing binary is a usage error, thrown now. */
export function createCodexEngine(options: CodexEngineOptions): CodexSessionEngine {
  return createCodexSessionEngine({ ...options, clientVersion: forgeVersion(), startError: codexStartError });
}
