import { stat } from 'node:fs/promises';
import path from 'node:path';
import { importCodexRollout, toCheckpointState, type CodexImportState, type CodexRolloutImport } from '@forge/codex';
import { hashMessages, InvalidInputError, jsonValueSchema, type Message } from '@forge/core';
import { createSession } from '@forge/persistence';
import { resolveWorkspaceRoot } from '../agent/workspace.js';
import { UsageError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { styleFor } from '../output/style.js';
import { sessionStoreError } from '../session/open-cli-session.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import type { CommandInvocation } from './command.js';

/** Marks the checkpoint an import stores, so readers can tell it from one Forge derived itself. */
export const CODEX_IMPORT_CHECKPOINT_STRATEGY = 'codex-import';

/**
 * `forge import codex <rollout.jsonl>`: reads a Codex rollout and prints its checkpoint view on
 * stdout (byte-stable: the same file and workspace give the same bytes) with a summary and any
 * warnings on stderr. `--json` prints `{ state, view, messageCount }` instead. `--session` also
 * stores the transcript as a new Forge session, with the import as its checkpoint, and names it.
 * `--cwd` is the workspace whose files are hashed (default: the one the rollout records).
 */
export async function execute({ args, options, io }: CommandInvocation): Promise<number> {
  const requested = args[0];
  if (typeof requested !== 'string' || requested.trim() === '') {
    throw new UsageError('say which rollout to import: forge import codex <rollout.jsonl> (Codex keeps them under $CODEX_HOME/sessions/YYYY/MM/DD/)');
  }
  const file = path.resolve(io.cwd, requested);
  await checkRolloutFile(file);
  const workspaceRoot = options.cwd === undefined ? undefined : await resolveWorkspaceRoot(io.cwd, options.cwd);

  let imported: CodexRolloutImport;
  try {
    imported = await importCodexRollout(file, workspaceRoot === undefined ? {} : { workspaceRoot });
  } catch (error) {
    if (InvalidInputError.isInstance(error)) throw new UsageError(error.message);
    throw error;
  }
  const style = styleFor(io.stderr, io.env);
  for (const warning of importWarnings(imported.state, file)) io.stderr.write(`${style.yellow(`forge: warning: ${warning}`)}\n`);

  const sessionId = options.session === true ? await storeAsSession(imported, { io, globals: options }) : undefined;
  if (options.json === true) {
    const document = { state: imported.state, view: imported.view, messageCount: imported.messages.length, ...(sessionId === undefined ? {} : { sessionId }) };
    io.stdout.write(`${JSON.stringify(document)}\n`);
  } else {
    io.stdout.write(imported.view);
    io.stderr.write(`${style.dim(summary(imported, file))}\n`);
  }
  if (sessionId !== undefined) io.stderr.write(`session: ${sessionId} ${style.dim(`(continue it with forge --resume ${sessionId}, on any --engine)`)}\n`);
  return ExitCode.ok;
}

async function checkRolloutFile(file: string): Promise<void> {
  let isFile: boolean;
  try {
    isFile = (await stat(file)).isFile();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(error as Error).message})`;
    throw new UsageError(`the rollout ${file} ${reason}; pass a rollout-*.jsonl file from $CODEX_HOME/sessions`);
  }
  if (!isFile) throw new UsageError(`the rollout ${file} is not a file; pass a rollout-*.jsonl file from $CODEX_HOME/sessions`);
}

/** What the import skipped, one sentence each. Nothing a warning names stops the import. */
export function importWarnings(state: CodexImportState, file: string): string[] {
  const { skipped } = state;
  const warnings: string[] = [];
  const lines = (count: number) => `${count} line${count === 1 ? '' : 's'}`;
  if (skipped.tornTail) warnings.push(`the last line of ${file} is cut off (Codex may still have been writing it); it was skipped and everything before it imported`);
  if (skipped.malformedLines > 0) warnings.push(`skipped ${lines(skipped.malformedLines)} of ${file}: not valid rollout records`);
  if (skipped.unknownLines > 0) {
    const types = skipped.unknownTypes.length === 0 ? '' : ` (${skipped.unknownTypes.join(', ')})`;
    warnings.push(`skipped ${lines(skipped.unknownLines)} of ${file}: record types this Forge does not know${types}`);
  }
  if (skipped.orphanToolOutputs > 0) warnings.push(`left out ${skipped.orphanToolOutputs} tool output${skipped.orphanToolOutputs === 1 ? '' : 's'} of ${file} without a matching call`);
  return warnings;
}

function summary(imported: CodexRolloutImport, file: string): string {
  const { state } = imported;
  const count = (value: number, noun: string) => `${value.toLocaleString('en-US')} ${noun}${value === 1 ? '' : 's'}`;
  const tokens = state.tokenUsage.latest === null ? 'no token reports' : `${count(state.tokenUsage.latest.total.totalTokens, 'token')} reported by Codex`;
  const version = state.source.cliVersion === null ? 'an unknown Codex version' : `Codex ${state.source.cliVersion}`;
  return (
    `Imported ${file} (${version}, ${state.source.generation} format): ` +
    `${count(imported.messages.length, 'message')}, ${count(state.commands.total, 'command')}, ${count(state.artifacts.length, 'file')}, ` +
    `${count(state.compactions.total, 'compaction')}, ${tokens}`
  );
}

/**
 * Creates a Forge session holding the imported transcript, and stores the import as its
 * checkpoint: it summarizes every imported message (provenance by `hashMessages` over the stored,
 * redacted messages) and carries the import state, its core `CheckpointState` form and the view.
 */
async function storeAsSession(imported: CodexRolloutImport, context: { readonly io: CliIo; readonly globals: CommandInvocation['options'] }): Promise<string> {
  const settings = await resolveSessionSettings({ io: context.io, globals: context.globals });
  const { state, view } = imported;
  try {
    const writer = await createSession(settings.forgeHome, { workspaceRoot: state.workspace.root, redactor: settings.redactor });
    try {
      const stored: readonly Message[] = imported.messages.length === 0 ? [] : await writer.appendMessages(imported.messages);
      const checkpoint = jsonValueSchema.parse({
        strategy: CODEX_IMPORT_CHECKPOINT_STRATEGY,
        schemaVersion: 1,
        importState: state,
        state: toCheckpointState(state),
        view,
      });
      await writer.recordCheckpoint({
        source: {
          summarizedThrough: stored.length,
          sourceHash: hashMessages(stored),
          tailStart: stored.length,
          tailHash: hashMessages([]),
          messageCount: stored.length,
        },
        checkpoint: settings.redactor.redactJson(checkpoint),
      });
      return writer.id;
    } finally {
      await writer.close();
    }
  } catch (error) {
    throw sessionStoreError(error);
  }
}
