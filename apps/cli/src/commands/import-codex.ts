import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  ImportCheckpointBuilder,
  importCodexRollout,
  MAX_ROLLOUT_LINE_BYTES,
  type CodexImportState,
  type CodexRolloutImport,
} from '@forge/codex';
import { InvalidInputError, type JsonValue, type Message } from '@forge/core';
import { renderCheckpointView, validateCheckpoint, type ForgeStateCheckpoint } from '@forge/core/checkpoint';
import { createSession, redactMessage, type SessionWriter } from '@forge/persistence';
import { resolveWorkspaceRoot } from '../agent/workspace.js';
import { UsageError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import { styleFor } from '../output/style.js';
import { sessionStoreError } from '../session/open-cli-session.js';
import { resolveSessionSettings, type SessionSettings } from '../session/session-settings.js';
import type { ImportCodexOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge import codex <rollout.jsonl>`: reads a Codex rollout as a stream and prints the checkpoint
 * it makes on stdout (byte-stable: the same file and workspace give the same bytes; the view the
 * model receives when the session is continued) with a summary and any warnings on stderr.
 * `--json` prints `{ state, view, checkpoint, messageCount }` instead. `--session` also streams the
 * transcript into a new Forge session, with the checkpoint as its current one, and names it.
 * `--cwd` is the workspace whose files are hashed and, with `--session`, the one the session is filed
 * under (default: with `--session` the current directory, like every command; without it the one the
 * rollout records, so the printed view depends on the file alone). A file
 * with neither Codex session metadata nor any turn is refused (exit 2), and no session is stored.
 */
export async function execute({ args, options, io }: CommandInvocation<ImportCodexOptions>): Promise<number> {
  const requested = args[0];
  if (typeof requested !== 'string' || requested.trim() === '') {
    throw new UsageError(
      'say which rollout to import: forge import codex <rollout.jsonl> (Codex keeps them under $CODEX_HOME/sessions/YYYY/MM/DD/)',
    );
  }
  const file = path.resolve(io.cwd, requested);
  await checkRolloutFile(file);
  // A stored session belongs to the workspace it is imported in, as every command's session does, so `--last` there finds it.
  const storing = options.session === true;
  const workspaceRoot =
    options.cwd === undefined && !storing ? undefined : await resolveWorkspaceRoot(io.cwd, options.cwd ?? '.');
  let recordedCwd: string | null = null;
  const settings = await resolveSessionSettings({ io, globals: options });
  const builder = new ImportCheckpointBuilder((text) => settings.redactor.redact(text));
  const target = storing ? new StreamedSession(settings) : undefined;

  let imported: CodexRolloutImport;
  try {
    imported = await importCodexRollout(file, {
      ...(workspaceRoot === undefined ? {} : { workspaceRoot }),
      onMessages: async (messages, context) => {
        recordedCwd = context.recordedCwd;
        const stored =
          target === undefined
            ? messages.map((message) => redactMessage(message, settings.redactor))
            : await target.append(messages, workspaceRoot ?? context.recordedCwd);
        for (const message of stored) builder.add(message);
      },
    });
  } catch (error) {
    await target?.discard();
    if (InvalidInputError.isInstance(error)) throw new UsageError(error.message);
    throw target === undefined ? error : sessionStoreError(error);
  }
  if (isNotARollout(imported.state)) {
    await target?.discard();
    throw new UsageError(
      `${file} is not a Codex rollout: it has no session metadata and no turns; pass a rollout-*.jsonl file from $CODEX_HOME/sessions`,
    );
  }
  const checkpoint = builder.finish(imported.state);
  const view = renderCheckpointView(checkpoint);
  const style = styleFor(io.stderr, io.env);
  for (const warning of importWarnings(imported.state, file))
    io.stderr.write(`${style.yellow(`forge: warning: ${warning}`)}\n`);

  let sessionId: string | undefined;
  if (target !== undefined) {
    if (builder.messageCount === 0) {
      await target.discard();
      io.stderr.write(`${style.yellow(`forge: warning: ${file} has no turns, so no session was stored`)}\n`);
    } else {
      sessionId = await target.finish(checkpoint);
    }
  }
  if (options.json === true) {
    const document = {
      state: imported.state,
      view,
      checkpoint,
      messageCount: builder.messageCount,
      sessionId,
    };
    io.stdout.write(`${JSON.stringify(document)}\n`);
  } else {
    io.stdout.write(view);
    io.stderr.write(`${style.dim(summary(imported.state, builder.messageCount, file))}\n`);
  }
  if (sessionId !== undefined && options.cwd === undefined && recordedCwd !== null && recordedCwd !== workspaceRoot)
    io.stderr.write(
      `${style.dim(`forge: the rollout was recorded in ${recordedCwd}; the session is filed under ${workspaceRoot ?? io.cwd}, where this import ran (pass --cwd to choose)`)}\n`,
    );
  if (sessionId !== undefined)
    io.stderr.write(
      `session: ${sessionId} ${style.dim(`(continue it with forge --resume ${sessionId}, on any --engine)`)}\n`,
    );
  return ExitCode.ok;
}

/** No `session_meta` (no session id, no Codex version) and nothing in the transcript: not a rollout at all. */
function isNotARollout(state: CodexImportState): boolean {
  return state.source.sessionId === null && state.source.cliVersion === null && state.transcript.messages === 0;
}

async function checkRolloutFile(file: string): Promise<void> {
  let isFile: boolean;
  try {
    isFile = (await stat(file)).isFile();
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'does not exist'
        : `cannot be read (${(error as Error).message})`;
    throw new UsageError(`the rollout ${file} ${reason}; pass a rollout-*.jsonl file from $CODEX_HOME/sessions`);
  }
  if (!isFile)
    throw new UsageError(`the rollout ${file} is not a file; pass a rollout-*.jsonl file from $CODEX_HOME/sessions`);
}

/** What the import skipped, one sentence each. Nothing a warning names stops the import. */
export function importWarnings(state: CodexImportState, file: string): string[] {
  const { skipped } = state;
  const warnings: string[] = [];
  const lines = (count: number) => `${count} line${count === 1 ? '' : 's'}`;
  if (skipped.tornTail)
    warnings.push(
      `the last line of ${file} is cut off (Codex may still have been writing it); it was skipped and everything before it imported`,
    );
  if (skipped.malformedLines > 0)
    warnings.push(`skipped ${lines(skipped.malformedLines)} of ${file}: not valid rollout records`);
  if (skipped.oversizedLines > 0) {
    warnings.push(
      `skipped ${lines(skipped.oversizedLines)} of ${file} longer than ${MAX_ROLLOUT_LINE_BYTES / (1024 * 1024)} MiB, unread (no rollout record Forge uses is that long)`,
    );
  }
  if (skipped.unknownLines > 0) {
    const types = skipped.unknownTypes.length === 0 ? '' : ` (${skipped.unknownTypes.join(', ')})`;
    warnings.push(`skipped ${lines(skipped.unknownLines)} of ${file}: record types this Forge does not know${types}`);
  }
  if (skipped.orphanToolOutputs > 0)
    warnings.push(
      `left out ${skipped.orphanToolOutputs} tool output${skipped.orphanToolOutputs === 1 ? '' : 's'} of ${file} without a matching call`,
    );
  return warnings;
}

function summary(state: CodexImportState, messages: number, file: string): string {
  const count = (value: number, noun: string) => `${value.toLocaleString('en-US')} ${noun}${value === 1 ? '' : 's'}`;
  const tokens =
    state.tokenUsage.latest === null
      ? 'no token reports'
      : `${count(state.tokenUsage.latest.total.totalTokens, 'token')} reported by Codex`;
  const version = state.source.cliVersion === null ? 'an unknown Codex version' : `Codex ${state.source.cliVersion}`;
  return (
    `Imported ${file} (${version}, ${state.source.generation} format): ` +
    `${count(messages, 'message')}, ${count(state.commands.total, 'command')}, ${count(state.artifacts.length, 'file')}, ` +
    `${count(state.compactions.total, 'compaction')}, ${tokens}`
  );
}

/**
 * The session an import streams into: created at the first batch of messages (so a file without
 * turns stores nothing), written batch by batch without keeping the transcript in memory, given
 * the import's checkpoint at the end, and removed again if the import fails half way.
 */
class StreamedSession {
  private writer: SessionWriter | undefined;

  constructor(private readonly settings: SessionSettings) {}

  async append(messages: readonly Message[], workspaceRoot: string | null): Promise<readonly Message[]> {
    this.writer ??= await createSession(this.settings.forgeHome, {
      workspaceRoot,
      redactor: this.settings.redactor,
      keepMessages: false,
    });
    return this.writer.appendMessages(messages);
  }

  /** Stores the checkpoint (validated first) and closes the session; returns its id. */
  async finish(checkpoint: ForgeStateCheckpoint): Promise<string> {
    const writer = this.writer;
    if (writer === undefined) throw new Error('An import session without messages; this is a bug in Forge.');
    try {
      const validation = validateCheckpoint(checkpoint, checkpoint.source.messageCount);
      if (!validation.ok)
        throw new Error(
          `The imported checkpoint is not valid (${validation.errors.slice(0, 2).join('; ')}); this is a bug in Forge.`,
        );
      await writer.recordCheckpoint({ source: checkpoint.source, checkpoint: checkpoint as unknown as JsonValue });
      await writer.close();
      return writer.id;
    } catch (error) {
      await this.discard();
      throw sessionStoreError(error);
    }
  }

  /** Removes the half-made session, if one was started. */
  async discard(): Promise<void> {
    const writer = this.writer;
    this.writer = undefined;
    if (writer === undefined) return;
    await writer.close().catch(() => undefined);
    await rm(writer.directory, { recursive: true, force: true });
  }
}
