import type { EngineTurn } from '@forge/sessions';
import type { CodexEventEnvelope } from '../engine/events.js';

/**
 * Core events go to the renderers; the Codex-only ones (its wrapper cost `codex.context.budgeted`,
 * its usage reports and compactions) to `onEngineEvent`, with a note for people.
 */
export function route(envelope: CodexEventEnvelope, turn: EngineTurn, thread: 'new' | 'continue'): void {
  const { event } = envelope;
  if (event.type === 'codex.usage.recorded') {
    turn.onEngineEvent?.(envelope);
    return;
  }
  if (event.type === 'codex.thread.selected') {
    turn.onEngineEvent?.(envelope);
    if (event.fallback !== undefined)
      turn.onNote?.(`codex: started a new Codex thread with Forge's bounded view: ${event.fallback.message}`);
    return;
  }
  if (event.type === 'codex.compaction.completed') {
    turn.onEngineEvent?.(envelope);
    turn.onNote?.('codex: Codex compacted its own context');
    return;
  }
  if (event.type === 'codex.context.budgeted') {
    turn.onEngineEvent?.(envelope);
    const tokens = `~${event.estimate.tokens.toLocaleString('en-US')} tokens`;
    if (event.input === 'request') {
      turn.onNote?.(
        thread === 'new'
          ? `codex: started a new Codex thread with the request, ${tokens} (no earlier turns to send)`
          : `codex: sent only the request to the session's Codex thread, ${tokens} (Codex holds the earlier turns)`,
      );
      return;
    }
    const history = `${event.historyMessages} history message${event.historyMessages === 1 ? '' : 's'}`;
    turn.onNote?.(
      `codex: sent Forge's active view, ${tokens} (${history}${event.hasCheckpoint ? ', a checkpoint' : ''})`,
    );
    return;
  }
  turn.onEvent({ ...envelope, event });
}
