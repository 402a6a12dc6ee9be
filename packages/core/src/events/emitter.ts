import { EVENT_SCHEMA_VERSION, type EventEnvelope, type ForgeEvent } from './events.js';

/**
 * Wraps the events of one run in envelopes with a gap-free sequence. Generic over the payload, so
 * an engine with events of its own (Codex) uses the same envelope and sequence rules.
 */
export function createEmitter<Event extends { readonly type: string } = ForgeEvent>(options: {
  readonly runId: string;
  readonly sessionId: string | undefined;
  readonly now: () => number;
  readonly listener: ((envelope: EventEnvelope<Event>) => void) | undefined;
}): (event: Event) => void {
  let sequence = 0;
  return (event) => {
    options.listener?.({
      schemaVersion: EVENT_SCHEMA_VERSION,
      runId: options.runId,
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      sequence: sequence++,
      timestamp: new Date(options.now()).toISOString(),
      event,
    });
  };
}
