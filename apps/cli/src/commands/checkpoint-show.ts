import { workspaceArtifactHashes } from '@forge/tools';
import { withRunIds, type CheckpointTranscriptEntry } from '@forge/core/checkpoint';
import { readCheckpointWindow } from '@forge/persistence';
import {
  currentArtifactHashesFor,
  renderActiveCheckpoint,
  resolveIndexedCheckpoint,
  resolveStoredCheckpoint,
  workingSetFor,
  type ResolvedCheckpoint,
} from '@forge/sessions';
import { resolveConfiguredModel } from '../agent/agent-setup.js';
import { resolveWorkspaceRoot } from '../agent/workspace.js';
import { ExitCode } from '../exit-codes.js';
import { styleFor } from '../output/style.js';
import {
  checkpointDocument,
  checkpointViewTokens,
  renderCheckpoint,
  type CheckpointSubject,
} from '../session/compaction-output.js';
import { loadStoredSession, sessionStoreError } from '../session/open-cli-session.js';
import type { SessionSettings } from '../session/session-settings.js';
import { resolveSessionTarget } from '../session/resolve-session.js';
import type { CheckpointShowOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge checkpoint show (--session <id> | --last) [--json]`: the session's current checkpoint
 * as the model is sent it (the rendered view, with facts judged against the workspace's files as they are now
 * and the files in hand read from disk now)
 * and where it came from: strategy, the messages it summarizes with their hash, whether the next
 * turn's mode sends it and what follows it verbatim, when it was recorded, its size in the
 * configured model's tokens. Reads without a lock and writes nothing.
 */
export async function execute({ options, io }: CommandInvocation<CheckpointShowOptions>): Promise<number> {
  const { id, settings } = await resolveSessionTarget(
    io,
    options,
    "say which session: --session <id> or --last (see 'forge sessions list')",
  );
  const session = await storedCheckpoint(settings, id);
  const resolved = session.resolve();
  const root = session.workspaceRoot ?? (await resolveWorkspaceRoot(io.cwd, options.cwd));
  const workspace = workspaceArtifactHashes(root);
  const currentHashes = await currentArtifactHashesFor(resolved, workspace);
  const workingSet = await workingSetFor(resolved, workspace, (text, context) =>
    settings.redactor.redact(text, context),
  );
  const view =
    resolved?.ok === true
      ? renderActiveCheckpoint(resolved.active, session.entries, undefined, currentHashes, workingSet)
      : undefined;
  const { model, config } = await resolveConfiguredModel({ io, globals: options, purpose: 'measure' });
  const subject: CheckpointSubject = {
    sessionId: id,
    resolved,
    view,
    viewTokens: await checkpointViewTokens(model, view),
    transcriptMessages: session.messageCount,
    mode: config.context.mode,
  };
  io.stdout.write(
    options.json === true
      ? `${JSON.stringify(checkpointDocument(subject))}\n`
      : renderCheckpoint(subject, styleFor(io.stdout, io.env)),
  );
  return ExitCode.ok;
}

/** What `checkpoint show` needs of a session: its current checkpoint, resolved, and the messages after it. */
interface CheckpointSession {
  readonly id: string;
  readonly workspaceRoot: string | null;
  readonly messageCount: number;
  /** The transcript by position; only the messages after the checkpoint need be present. */
  readonly entries: readonly CheckpointTranscriptEntry[];
  resolve(): ResolvedCheckpoint | undefined;
}

/**
 * A v2 session's checkpoint read at the offset its index gives, with only the records after it
 * (so the answer does not grow with the session); a v1 session, which has no index, loaded whole.
 */
async function storedCheckpoint(settings: SessionSettings, id: string): Promise<CheckpointSession> {
  let window;
  try {
    window = await readCheckpointWindow(settings.forgeHome, id);
  } catch (error) {
    if (!isMissingFile(error)) throw sessionStoreError(error);
    const session = await loadStoredSession(settings, id);
    const entries = withRunIds(session.messages, session.runs);
    const { checkpoint } = session;
    return {
      id,
      workspaceRoot: session.workspaceRoot,
      messageCount: session.messages.length,
      entries,
      resolve: () => (checkpoint === undefined ? undefined : resolveStoredCheckpoint(checkpoint, entries)),
    };
  }
  const { index, checkpoint } = window;
  // Positions before the first message read stay empty: nothing reads them.
  const entries: CheckpointTranscriptEntry[] = [];
  entries.length = index.messageCount;
  for (const entry of window.after)
    entries[entry.index] =
      entry.runId === undefined ? { message: entry.message } : { message: entry.message, runId: entry.runId };
  return {
    id,
    workspaceRoot: index.workspaceRoot,
    messageCount: index.messageCount,
    entries,
    resolve: () => (checkpoint === undefined ? undefined : resolveIndexedCheckpoint(checkpoint, index.messageCount)),
  };
}

function isMissingFile(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}
