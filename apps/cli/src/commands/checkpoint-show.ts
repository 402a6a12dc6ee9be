import { workspaceArtifactHashes } from '@forge/tools';
import { withRunIds } from '@forge/core/checkpoint';
import {
  currentArtifactHashesFor,
  renderActiveCheckpoint,
  resolveStoredCheckpoint,
  workingSetFor,
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
import { loadStoredSession } from '../session/open-cli-session.js';
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
  const session = await loadStoredSession(settings, id);
  const entries = withRunIds(session.messages, session.runs);
  const resolved = session.checkpoint === undefined ? undefined : resolveStoredCheckpoint(session.checkpoint, entries);
  const root = session.workspaceRoot ?? (await resolveWorkspaceRoot(io.cwd, options.cwd));
  const workspace = workspaceArtifactHashes(root);
  const currentHashes = await currentArtifactHashesFor(resolved, workspace);
  const workingSet = await workingSetFor(resolved, workspace, (text, context) =>
    settings.redactor.redact(text, context),
  );
  const view =
    resolved?.ok === true
      ? renderActiveCheckpoint(resolved.active, entries, undefined, currentHashes, workingSet)
      : undefined;
  const { model, config } = await resolveConfiguredModel({ io, globals: options, purpose: 'measure' });
  const subject: CheckpointSubject = {
    sessionId: session.id,
    resolved,
    view,
    viewTokens: await checkpointViewTokens(model, view),
    transcriptMessages: session.messages.length,
    mode: config.context.mode,
  };
  io.stdout.write(
    options.json === true
      ? `${JSON.stringify(checkpointDocument(subject))}\n`
      : renderCheckpoint(subject, styleFor(io.stdout, io.env)),
  );
  return ExitCode.ok;
}
