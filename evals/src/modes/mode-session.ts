import type { EventEnvelope } from '@forge/core';
import type { ExpandedTurn } from '../fixture/expand.js';
import type { EvalSession } from './eval-session.js';
import type { ModeSession, ModeTurnResult } from './types.js';

/** A turn's result for a mode that reports nothing beyond the run and its events (unless `extra` says so). */
export function turnResult(
  result: ModeTurnResult['result'],
  events: EventEnvelope[],
  extra: Partial<ModeTurnResult> = {},
): ModeTurnResult {
  return { result, compactions: [], noProgressStops: 0, overflowRecoveries: 0, memoryTexts: [], events, ...extra };
}

/** A mode's session over one stored eval session: `runTurn` decides what each turn sends; restart and close are the session's own. */
export function modeSession(
  session: EvalSession,
  runTurn: (turn: ExpandedTurn) => Promise<ModeTurnResult>,
): ModeSession {
  return { runTurn, restart: () => session.restart(), close: () => session.close() };
}
