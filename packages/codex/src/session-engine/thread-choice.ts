import { access } from 'node:fs/promises';
import type { SessionTranscript } from '@forge/persistence';
import type { CodexAppServer, CodexThreadOptions } from '../app-server/client.js';
import type { CodexThreadFallbackReason } from '../engine/events.js';
import { recordedThread } from './recorded-thread.js';

/** Where the next Codex turn of a session goes. */
export type CodexThreadChoice =
  | {
      readonly kind: 'continue';
      readonly how: 'continued' | 'resumed';
      readonly threadId: string;
      readonly model: string;
      readonly rolloutPath: string | null;
    }
  | {
      readonly kind: 'new';
      readonly fallback?: { readonly reason: CodexThreadFallbackReason; readonly message: string };
    };

const newThread = (reason: CodexThreadFallbackReason, message: string): CodexThreadChoice => ({
  kind: 'new',
  fallback: { reason, message },
});

/**
 * Decides whether the next Codex turn continues the thread of the session's latest run (on this
 * server, or loaded again with `thread/resume` after a restart) or starts a new thread fed with
 * Forge's bounded view, and why. A thread is continued only when the latest run was a Codex turn
 * on it, with the same Codex version, model and instructions, and its rollout still exists;
 * whatever Codex stored is never asked to decide an approval (`settings` sets them again).
 */
export async function chooseCodexThread(options: {
  readonly session: SessionTranscript;
  readonly server: CodexAppServer;
  readonly settings: CodexThreadOptions;
  readonly instructionsHash: string;
  /** The run this choice is for, when its start is already recorded: it is not one of the earlier runs. */
  readonly currentRunId?: string;
}): Promise<CodexThreadChoice> {
  const { session, server, settings } = options;
  const runs = session.runs.filter((run) => run.runId !== options.currentRunId);
  const last = runs.at(-1);
  const recorded = recordedThread(last);
  if (recorded === undefined) {
    // The current request is already stored; only earlier messages count as history.
    const earlierMessages =
      last === undefined ? session.messages.length - (options.currentRunId === undefined ? 0 : 1) : 1;
    if (last === undefined && earlierMessages <= 0) return { kind: 'new' };
    if (runs.some((run) => recordedThread(run) !== undefined)) {
      return newThread('engine-switched', 'the session went on with another engine since its last Codex turn');
    }
    if (last === undefined || last.model?.provider === 'codex')
      return newThread('no-thread-recorded', 'the session has no Codex thread to continue');
    return newThread(
      'engine-switched',
      `the session's earlier turns ran on ${last.model?.provider ?? 'another engine'}`,
    );
  }
  if (recorded.codexVersion !== server.info.version) {
    return newThread(
      'codex-version-changed',
      `Codex is now ${server.info.version}; the thread was made by ${recorded.codexVersion}`,
    );
  }
  if (settings.model !== undefined && settings.model !== recorded.model) {
    return newThread('model-changed', `the thread runs ${recorded.model}; this turn asks for ${settings.model}`);
  }
  if (recorded.instructionsHash !== undefined && recorded.instructionsHash !== options.instructionsHash) {
    return newThread('instructions-changed', 'the instructions (AGENTS.md) changed since the thread started');
  }
  if (server.hasLoadedThread(recorded.threadId)) {
    return {
      kind: 'continue',
      how: 'continued',
      threadId: recorded.threadId,
      model: recorded.model,
      rolloutPath: recorded.rolloutPath,
    };
  }
  if (recorded.rolloutPath !== null && !(await fileExists(recorded.rolloutPath))) {
    return newThread('rollout-missing', `the thread's rollout ${recorded.rolloutPath} is gone`);
  }
  let resumed;
  try {
    resumed = await server.resumeThread(recorded.threadId, settings);
  } catch (error) {
    return newThread(
      'resume-failed',
      `Codex could not resume thread ${recorded.threadId} (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (resumed.model !== recorded.model) {
    return newThread(
      'model-changed',
      `Codex's configuration now gives ${resumed.model}; the thread ran ${recorded.model}`,
    );
  }
  return {
    kind: 'continue',
    how: 'resumed',
    threadId: resumed.threadId,
    model: resumed.model,
    rolloutPath: resumed.rolloutPath ?? recorded.rolloutPath,
  };
}

/** True when `path` exists and can be reached (any kind of file); false on any error. */
async function fileExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
