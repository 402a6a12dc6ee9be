import type { EventEnvelope } from '../events/events.js';
import type { JsonValue } from '../json.js';
import type { Redactor } from '../redaction/redactor.js';

/** What an observer may know about provider-native compaction state: never the items. */
interface OpaqueStateSummary {
  readonly provider: string;
  readonly modelId: string;
  readonly itemHash: string;
  readonly bytes: number;
}

function isOpaqueState(value: object): value is OpaqueStateSummary & { readonly items: unknown } {
  const candidate = value as Record<string, unknown>;
  return (
    Array.isArray(candidate['items']) &&
    typeof candidate['itemHash'] === 'string' &&
    typeof candidate['provider'] === 'string' &&
    typeof candidate['modelId'] === 'string' &&
    typeof candidate['bytes'] === 'number'
  );
}

/** A plain copy of `value` in which every opaque provider state is replaced by its summary. */
function withoutOpaqueItems(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(withoutOpaqueItems);
  if (isOpaqueState(value)) {
    return { provider: value.provider, modelId: value.modelId, itemHash: value.itemHash, bytes: value.bytes };
  }
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = withoutOpaqueItems(item);
  return copy;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/**
 * The envelope as an observer may see it: a deep copy in which every string has passed through
 * `redactor` (credentials, configured secrets, values of secret-named fields), every opaque
 * provider state (an object with `items` and `itemHash`) is reduced to
 * `{ provider, modelId, itemHash, bytes }`, and every object and array is frozen. The original is
 * never modified and shares nothing with the result.
 *
 * Each event is redacted on its own: a secret split across two `model.text.delta` events is not
 * recognised. Observers that need the model's text should join the deltas and redact again.
 */
export function toObserverEvent(envelope: EventEnvelope, redactor: Redactor): EventEnvelope {
  // Envelopes are JSON data apart from `undefined` usage fields, which the redactor passes through.
  const redacted = redactor.redactJson(withoutOpaqueItems(envelope) as JsonValue);
  return deepFreeze(redacted as unknown as EventEnvelope);
}
