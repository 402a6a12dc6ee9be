import type { EventEnvelope, EventListener } from '../events/events.js';
import type { Redactor } from '../redaction/redactor.js';
import { toObserverEvent } from './observer-event.js';

/**
 * A subscriber to a run's events (a plugin, a metrics exporter). It receives redacted, frozen
 * copies only and is given nothing else: no handle on the run, its checkpoint, its limits or its
 * approval gate, so an observer can watch a run but never steer it. It may return a promise;
 * nobody waits for it.
 */
export type Observer = (envelope: EventEnvelope) => void | Promise<void>;

export interface ObserverHubOptions {
  /** Redacts every string an observer sees; build it with the session's configured secrets. */
  readonly redactor: Redactor;
  readonly observers: readonly Observer[];
  /**
   * Told when an observer throws or its promise rejects, with the observer's position in
   * `observers`. The run is not affected either way; an error thrown here is ignored too.
   */
  readonly onObserverError?: (error: unknown, observerIndex: number, envelope: EventEnvelope) => void;
}

/** Hands each event of a run to untrusted observers, isolated from the run and from each other. */
export interface ObserverHub {
  /** Pass wherever an `EventListener` is expected (`runAgent`'s `observers` takes the hub itself). */
  readonly listener: EventListener;
  /** How many times an observer threw or rejected. */
  failures(): number;
}

/**
 * Creates the hub that feeds `observers`. Each envelope is redacted and frozen once (see
 * `toObserverEvent`) and the same frozen copy goes to every observer, so none can change what
 * the others or the run see. An observer that throws or rejects is counted and reported through
 * `onObserverError`, and the next observers still get the event; the run never sees the failure.
 */
export function createObserverHub(options: ObserverHubOptions): ObserverHub {
  const observers = [...options.observers];
  let failures = 0;

  const report = (error: unknown, observerIndex: number, envelope: EventEnvelope) => {
    failures += 1;
    try {
      options.onObserverError?.(error, observerIndex, envelope);
    } catch {
      // The error sink is as untrusted as the observers it reports on.
    }
  };

  const listener: EventListener = (original) => {
    if (observers.length === 0) return;
    let envelope: EventEnvelope;
    try {
      envelope = toObserverEvent(original, options.redactor);
    } catch (error) {
      // Without a redacted copy no observer gets this event: a raw one must never leak.
      observers.forEach((_observer, index) => report(error, index, original));
      return;
    }
    observers.forEach((observer, index) => {
      try {
        const returned = observer(envelope);
        if (returned !== undefined && typeof (returned as Promise<void>).then === 'function') {
          (returned as Promise<void>).then(undefined, (error: unknown) => report(error, index, envelope));
        }
      } catch (error) {
        report(error, index, envelope);
      }
    });
  };

  return { listener, failures: () => failures };
}
