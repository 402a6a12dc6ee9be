import type { SessionRun } from '@forge/persistence';

/*
 * What a session's run recorded about its Codex thread. Light on purpose: `forge compact` asks it
 * of every session it compacts, and must not load the App Server client to do so
 * (`@forge/codex/recorded-thread`).
 */

/** The Codex thread a session's latest run used, as that run recorded it. */
export interface RecordedCodexThread {
  readonly threadId: string;
  readonly model: string;
  readonly rolloutPath: string | null;
  readonly codexVersion: string;
  readonly instructionsHash: string | undefined;
}

/** The thread the run recorded, when it was a Codex run that knew its thread. */
export function recordedThread(run: SessionRun | undefined): RecordedCodexThread | undefined {
  const engine = run?.engine;
  if (run === undefined || engine?.name !== 'codex' || engine.thread === undefined) return undefined;
  return {
    threadId: engine.thread.id,
    model: engine.thread.model,
    rolloutPath: engine.thread.rolloutPath,
    codexVersion: engine.version,
    instructionsHash: run.instructionsHash,
  };
}
