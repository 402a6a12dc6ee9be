import { loadTranscript } from '@forge/persistence';
import { resolveWorkspaceRoot } from '../agent/workspace.js';
import { UsageError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import { styleFor } from '../output/style.js';
import { COMPACTION_NOT_AVAILABLE, previewCompaction, renderCompactPreview } from '../session/compact-preview.js';
import { lastWorkspaceSession, sessionStoreError } from '../session/open-cli-session.js';
import { checkSessionId } from '../session/session-choice.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge compact --dry-run`: previews a compaction of a stored session, reading it without a lock
 * and without writing. Compaction itself needs checkpoints, which are not available yet.
 */
export async function execute({ options, io }: CommandInvocation): Promise<number> {
  if (options.dryRun !== true) throw new UsageError(COMPACTION_NOT_AVAILABLE);
  const named = typeof options.session === 'string' ? options.session : typeof options.resume === 'string' ? options.resume : undefined;
  if (named !== undefined && options.last === true) throw new UsageError('--session and --last both choose a session; give one of them');
  const settings = await resolveSessionSettings({ io, globals: options });
  let id: string;
  if (named !== undefined) id = checkSessionId(named, '--session');
  else if (options.last === true) id = (await lastWorkspaceSession(settings.forgeHome, await resolveWorkspaceRoot(io.cwd, options.cwd))).id;
  else throw new UsageError("say which session to preview: --session <id> or --last (see 'forge sessions list')");

  let session;
  try {
    session = await loadTranscript(settings.forgeHome, id, { redactor: settings.redactor });
  } catch (error) {
    throw sessionStoreError(error);
  }
  const report = previewCompaction({
    sessionId: session.id,
    messages: session.messages,
    summarizedThrough: session.checkpoint?.source.summarizedThrough,
    recentTailTokens: settings.recentTailTokens,
    summaryTargetTokens: settings.summaryTargetTokens,
  });
  io.stdout.write(options.json === true ? `${JSON.stringify(report)}\n` : renderCompactPreview(report, styleFor(io.stdout, io.env)));
  return ExitCode.ok;
}
