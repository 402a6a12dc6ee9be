import type { EventEnvelope } from '@forge/core';
import type { ExpandedTurn } from '../fixture/expand.js';
import { EvalSession } from './eval-session.js';
import type { ModeContext, ModeRunner, ModeSession, ModeTurnResult } from './types.js';

function turnResult(result: ModeTurnResult['result'], events: EventEnvelope[], extra: Partial<ModeTurnResult> = {}): ModeTurnResult {
  return { result, compactions: [], noProgressStops: 0, overflowRecoveries: 0, memoryTexts: [], events, ...extra };
}

/**
 * Modes `off` and `warn` as the product runs them: `SessionHandle.runTurn` with the session view,
 * the newest whole turns that fit `recentTailTokens`; nothing is ever compacted.
 */
function storedMode(id: 'off' | 'warn', label: string): ModeRunner {
  return {
    id,
    label,
    family: 'forge',
    compacts: false,
    offersContextTools: false,
    implementation: `SessionHandle.runTurn in mode ${id}: the session view (recent tail), no checkpoint`,
    async start(context: ModeContext): Promise<ModeSession> {
      const session = await EvalSession.open(context);
      return {
        async runTurn(turn: ExpandedTurn) {
          const events: EventEnvelope[] = [];
          return turnResult(await session.runStored(turn, id, events, { recentTailTokens: context.policy.recentTailTokens }), events);
        },
        restart: () => session.restart(),
        close: () => session.close(),
      };
    },
  };
}

export const offMode: ModeRunner = storedMode('off', 'off: recent tail only, no budget decisions');
export const warnMode: ModeRunner = storedMode('warn', 'warn: recent tail only, budget measured and warned about');

/** Every stored message on every request, as a client without context management sends it. */
export const fullHistoryMode: ModeRunner = {
  id: 'baseline:full-history',
  label: 'baseline: the whole transcript on every request (no context management)',
  family: 'baseline',
  compacts: false,
  offersContextTools: false,
  implementation: 'SessionHandle.runTurn in mode off with a tail budget no session reaches',
  async start(context) {
    const session = await EvalSession.open(context);
    return {
      async runTurn(turn) {
        const events: EventEnvelope[] = [];
        return turnResult(await session.runStored(turn, 'off', events), events);
      },
      restart: () => session.restart(),
      close: () => session.close(),
    };
  },
};
