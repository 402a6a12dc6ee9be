import { sha256Hex, type JsonObject, type OpaqueProviderState } from '@forge/core';

/*
 * What the crash child prints on stdout, one line each, always after the step it names is
 * durable (or, for `*-begin`, just before a write starts):
 *
 *   ready
 *   messages <count> <hash>     the first <count> stored messages hash to <hash> (hashMessages)
 *   checkpoint-begin <hash>     about to store the checkpoint whose checkpointHash is <hash>
 *                               (`*` when the session's own compaction builds it: any valid one)
 *   checkpoint <hash>           that checkpoint's record is on disk
 *   checkpoint-skipped          the compaction begun made no checkpoint
 *   opaque-begin <itemHash>     about to persist opaque state
 *   opaque <itemHash>           it is persisted
 */

export type CrashAck =
  | { readonly kind: 'ready' | 'checkpoint-skipped' }
  | { readonly kind: 'messages'; readonly count: number; readonly hash: string }
  | { readonly kind: 'checkpoint-begin' | 'checkpoint' | 'opaque-begin' | 'opaque'; readonly hash: string };

/** Parses one line of the child's stdout; undefined for anything else. */
export function parseCrashAck(line: string): CrashAck | undefined {
  const [word, first, second] = line.split(' ');
  if (word === 'ready' || word === 'checkpoint-skipped') return { kind: word };
  if (word === 'messages' && first !== undefined && second !== undefined)
    return { kind: 'messages', count: Number(first), hash: second };
  if (
    (word === 'checkpoint-begin' || word === 'checkpoint' || word === 'opaque-begin' || word === 'opaque') &&
    first !== undefined
  ) {
    return { kind: word, hash: first };
  }
  return undefined;
}

/** The lane the child persists opaque state under, and the provider and model it claims. */
export const CRASH_OPAQUE_TARGET = { provider: 'scripted', modelId: 'crash-model' } as const;

/** An opaque provider state for cycle `cycle`, large enough that some kills land inside its write. */
export function crashOpaqueState(cycle: number, size: number): OpaqueProviderState {
  const items: JsonObject[] = [
    { type: 'message', role: 'user', content: `retained request of cycle ${cycle}` },
    { type: 'compaction', encrypted_content: `enc_${cycle}_`.padEnd(size, String.fromCharCode(97 + (cycle % 26))) },
  ];
  const serialized = JSON.stringify(items);
  return {
    ...CRASH_OPAQUE_TARGET,
    itemHash: sha256Hex(serialized),
    bytes: Buffer.byteLength(serialized, 'utf8'),
    items,
    sourceHash: sha256Hex(`source ${cycle}`),
    sourceMessages: cycle,
    previousItemHash: null,
  };
}
