import { createHash, type Hash } from 'node:crypto';
import type { ContextCheckpoint } from './checkpoint/schema.js';
import type { JsonValue } from './json.js';
import type { Message } from './messages.js';

/*
 * Every hash core computes: SHA-256 in lowercase hex, over bytes, text or canonical JSON.
 */

/** SHA-256 (hex) of `content`: instruction files and texts, tool outputs, cache keys. */
export function sha256Hex(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * JSON text with object keys sorted at every level and no whitespace, so equal values always give
 * the same bytes however their objects were built. `undefined` fields are left out, as
 * `JSON.stringify` does.
 */
export function canonicalJsonStringify(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item: JsonValue) => canonicalJsonStringify(item)).join(',')}]`;
  const entries = Object.entries(value as { readonly [key: string]: JsonValue | undefined })
    .filter((entry): entry is [string, JsonValue] => entry[1] !== undefined)
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJsonStringify(item)}`).join(',')}}`;
}

/**
 * SHA-256 of a run of messages exactly as `hashMessages` computes it (canonical JSON of the array),
 * fed one message at a time, so a long transcript is never one string: only one message's JSON is
 * held at a time.
 */
export class MessagesHasher {
  private readonly hash: Hash = createHash('sha256').update('[');
  private count = 0;

  add(message: Message): this {
    this.hash.update(`${this.count === 0 ? '' : ','}${canonicalJsonStringify(message as unknown as JsonValue)}`);
    this.count += 1;
    return this;
  }

  /** The hash of the messages added so far; more can be added after. */
  digestSoFar(): string {
    return this.hash.copy().update(']').digest('hex');
  }

  /** The hash of the messages added; the hasher cannot be used after. */
  digest(): string {
    return this.hash.update(']').digest('hex');
  }
}

/**
 * SHA-256 (hex) of a run of messages in canonical JSON. Checkpoint provenance uses it for its
 * source and tail hashes, so a checkpoint whose messages changed can be recognised. Hashed one
 * message at a time, so a transcript of any length never becomes one string.
 */
export function hashMessages(messages: readonly Message[], from = 0, to = messages.length): string {
  const hasher = new MessagesHasher();
  for (let index = from; index < to; index += 1) hasher.add(messages[index] as Message);
  return hasher.digest();
}

/** SHA-256 (hex) of `value` in canonical JSON: equal values hash alike however their objects were built. */
export function hashCanonicalJson(value: JsonValue): string {
  return sha256Hex(canonicalJsonStringify(value));
}

/** SHA-256 of the checkpoint in canonical JSON: the hash events and traces record for it. */
export function checkpointHash(checkpoint: ContextCheckpoint | JsonValue): string {
  return hashCanonicalJson(checkpoint as JsonValue);
}
