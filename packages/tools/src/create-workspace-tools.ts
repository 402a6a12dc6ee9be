import { InvalidInputError, type Tool } from '@forge/core';
import type { ReadLedger } from './read-ledger.js';
import type { CommandSandbox } from './sandbox/command-sandbox.js';
import { createEditFileTool } from './tools/edit-file.js';
import { createListFilesTool } from './tools/list-files.js';
import { createReadFileTool } from './tools/read-file.js';
import { createRunCommandTool, type RunCommandToolOptions } from './tools/run-command.js';
import { createSearchTool } from './tools/search.js';

export interface WorkspaceToolsOptions {
  /** The workspace root. Every path a tool touches must resolve (symlinks followed) inside its real path. */
  readonly root: string;
  /** The session's record of full reads; share one per session so edits see earlier reads. */
  readonly ledger: ReadLedger;
  /** run_command: timeout when a call names none, and the most a call may ask for (default 120 000 ms). */
  readonly commandTimeoutMs?: number;
  /** run_command: combined stdout/stderr kept per call, first and last half (default 64 KiB). */
  readonly outputCapBytes?: number;
  /** read_file: most bytes of content one call returns (default 128 KiB). */
  readonly readCapBytes?: number;
  /** run_command: how programs are started (default: real processes); see `RunCommandToolOptions.runProcess`. */
  readonly runProcess?: RunCommandToolOptions['runProcess'];
  /** run_command: the sandbox commands run in (default: the default settings for `root`, see `createCommandSandbox`). */
  readonly sandbox?: CommandSandbox;
}

/**
 * The workspace tools of one session, in a fixed order: `list_files`, `read_file`, `search`
 * (risk read), `edit_file` (write) and `run_command` (execute).
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions): Tool[] {
  const { root, ledger, commandTimeoutMs, outputCapBytes, readCapBytes, runProcess, sandbox } = options;
  for (const [name, value] of Object.entries({ commandTimeoutMs, outputCapBytes, readCapBytes })) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw new InvalidInputError({
        message: `createWorkspaceTools: ${name} must be a positive integer, got ${String(value)}.`,
      });
    }
  }
  return [
    createListFilesTool({ root }),
    createReadFileTool({ root, ledger, readCapBytes }),
    createSearchTool({ root }),
    createEditFileTool({ root, ledger }),
    createRunCommandTool({
      root,
      commandTimeoutMs,
      outputCapBytes,
      runProcess,
      sandbox,
    }),
  ];
}
