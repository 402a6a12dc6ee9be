import { EVENT_SCHEMA_VERSION, type EventListener, type ForgeEvent } from '../events/events.js';
import type { ObserverHub } from '../observers/observer-hub.js';

/** Wraps events of one run in envelopes with a gap-free sequence. */
export function createEmitter(options: {
  runId: string;
  sessionId: string | undefined;
  now: () => number;
  listener: EventListener | undefined;
}): (event: ForgeEvent) => void {
  let sequence = 0;
  return (event) => {
    const envelope = {
      schemaVersion: EVENT_SCHEMA_VERSION,
      runId: options.runId,
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      sequence: sequence++,
      timestamp: new Date(options.now()).toISOString(),
      event,
    };
    options.listener?.(envelope);
  };
}

/** The host's listener followed by the observers' hub, which redacts and isolates on its own. */
export function withObservers(listener: EventListener | undefined, observers: ObserverHub | undefined): EventListener | undefined {
  if (observers === undefined) return listener;
  if (listener === undefined) return observers.listener;
  return (envelope) => {
    listener(envelope);
    observers.listener(envelope);
  };
}
