import type { EventListener } from '../events/events.js';
import type { ObserverHub } from '../observers/observer-hub.js';

/** The host's listener followed by the observers' hub, which redacts and isolates on its own. */
export function withObservers(
  listener: EventListener | undefined,
  observers: ObserverHub | undefined,
): EventListener | undefined {
  if (observers === undefined) return listener;
  if (listener === undefined) return observers.listener;
  return (envelope) => {
    listener(envelope);
    observers.listener(envelope);
  };
}
