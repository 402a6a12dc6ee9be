import type { EventEnvelope } from '@forge/core';
import type { ExpandedTurn } from '../fixture/expand.js';
import { EvalSession } from './eval-session.js';
import { withoutWindow } from './model-wrappers.js';
import { modeSession, turnResult } from './mode-session.js';
import type { ModeContext, ModeRunner, ModeSession } from './types.js';

/**
 * Modes `off` and `warn` as the product runs them: `SessionHandle.runTurn` with the session view,
 * every stored message; nothing is ever compacted, and a turn the whole conversation no longer
 * fits stops `limit_reached` before the provider is called.
 */
function storedMode(id: 'off' | 'warn', label: string): ModeRunner {
  return {
    id,
    label,
    family: 'forge',
    compacts: false,
    offersContextTools: false,
    implementation: `SessionHandle.runTurn in mode ${id}: every stored message, no checkpoint, a stop when it cannot fit`,
    async start(context: ModeContext): Promise<ModeSession> {
      const session = await EvalSession.open(context);
      return modeSession(session, async (turn: ExpandedTurn) => {
        const events: EventEnvelope[] = [];
        return turnResult(await session.runStored(turn, id, events), events);
      });
    },
  };
}

export const offMode: ModeRunner = storedMode('off', 'off: every message, no checkpoint, no warnings');
export const warnMode: ModeRunner = storedMode('warn', 'warn: every message, no checkpoint, warnings past warnAtRatio');

/**
 * Every stored message on every request, as a client without context management sends it: no
 * budget holds anything back, so the provider refuses what does not fit.
 */
export const fullHistoryMode: ModeRunner = {
  id: 'baseline:full-history',
  label: 'baseline: the whole transcript on every request (no context management)',
  family: 'baseline',
  compacts: false,
  offersContextTools: false,
  implementation:
    'every stored message, with no window known to the client: the provider alone refuses what is too long',
  async start(context) {
    const session = await EvalSession.open(context);
    return modeSession(session, async (turn) => {
      const events: EventEnvelope[] = [];
      return turnResult(
        await session.runWithView(
          turn,
          'off',
          { history: [...session.messages] },
          events,
          withoutWindow(context.model),
        ),
        events,
      );
    });
  },
};
