import {
  ForgeError,
  assertSafeId,
  sha256Hex,
  type ErrorSummary,
  type JsonValue,
  type OpaqueProviderState,
} from '@forge/core';
import path from 'node:path';
import { createRedactor, type Redactor } from '@forge/core/redaction';
import {
  deleteAllStateFiles,
  deleteStateFile,
  OPAQUE_STATE_SCHEMA_VERSION,
  readStateFile,
  STATE_FILE_ENVELOPE_BYTES,
  writeStateFile,
  type ConversationIdentity,
} from './state-file.js';

/** Where provider-native compaction states live in FORGE_HOME (one 0700 directory per session). */
export function nativeStateDirectory(forgeHome: string): string {
  return path.join(forgeHome, 'state', 'native-compaction');
}

/** The model a request is about to go to. */
export interface ReplayTarget {
  readonly provider: string;
  readonly modelId: string;
}

/**
 * What to do with stored state for one request: replay it, or not — `skip` means there is
 * state but it belongs to another provider or model, and it is kept for the conversation's own model.
 */
export type ReplayDecision =
  | { readonly kind: 'replay'; readonly state: OpaqueProviderState }
  | { readonly kind: 'none' }
  | { readonly kind: 'skip'; readonly reason: 'other-provider' | 'other-model' };

export interface OpaqueStateStoreOptions {
  /** Where persisted state lives, e.g. `<FORGE_HOME>/state/native-compaction`. */
  readonly directory: string;
  /**
   * Also keep state on disk so it survives a restart. Off by default: the provider's items hold
   * the conversation's retained user messages in plain text next to the encrypted item. A state
   * whose items hold anything `redactor` would redact is never written (it stays in memory only).
   */
  readonly persist?: boolean;
  /** Decides which states hold secrets (default: common credential shapes); pass the session's redactor. */
  readonly redactor?: Redactor;
  /** Larger states are neither kept nor replayed (default 4 MiB). */
  readonly maxStateBytes?: number;
  /** Conversations kept in memory; the least recently used is evicted and reloaded from disk (default 64). */
  readonly maxMemoryEntries?: number;
  readonly now?: () => Date;
}

export const DEFAULT_MAX_STATE_BYTES = 4 * 1024 * 1024;

/**
 * Provider-native compaction state, one entry per conversation identity (session + lane, never
 * the session alone, so a subagent cannot replace or clear the main conversation's state).
 * Memory first; with `persist`, every change is also written atomically to a 0600 file in a 0700
 * directory named by safe ids only, and read back after a restart or an eviction.
 */
export class OpaqueStateStore {
  private readonly directory: string;
  private readonly persist: boolean;
  private readonly maxStateBytes: number;
  private readonly maxMemoryEntries: number;
  private readonly now: () => Date;
  private readonly redactor: Redactor;
  private readonly memory = new Map<string, OpaqueProviderState>();

  constructor(options: OpaqueStateStoreOptions) {
    this.directory = options.directory;
    this.persist = options.persist ?? false;
    this.maxStateBytes = options.maxStateBytes ?? DEFAULT_MAX_STATE_BYTES;
    this.maxMemoryEntries = options.maxMemoryEntries ?? 64;
    this.now = options.now ?? (() => new Date());
    this.redactor = options.redactor ?? createRedactor();
  }

  /** The state to send with a request of this conversation to `target`. Never clears anything. */
  async forReplay(identity: ConversationIdentity, target: ReplayTarget): Promise<ReplayDecision> {
    const state = await this.load(identity);
    if (state === undefined) return { kind: 'none' };
    if (state.provider !== target.provider) return { kind: 'skip', reason: 'other-provider' };
    if (state.modelId !== target.modelId) return { kind: 'skip', reason: 'other-model' };
    return { kind: 'replay', state };
  }

  /** Anchors the state a compaction produced, replacing the conversation's previous one. */
  async save(identity: ConversationIdentity, state: OpaqueProviderState): Promise<void> {
    const key = keyOf(identity);
    if (state.bytes > this.maxStateBytes) {
      await this.delete(identity);
      return;
    }
    this.remember(key, state);
    // Items are kept as the provider sent them, so one holding a secret is never put on disk; an
    // older file of this conversation is stale now and goes.
    if (this.persist && this.holdsSecret(state)) await deleteStateFile(this.directory, identity);
    else if (this.persist) {
      await writeStateFile(this.directory, identity, {
        schemaVersion: OPAQUE_STATE_SCHEMA_VERSION,
        sessionId: identity.sessionId,
        lane: identity.lane,
        savedAt: this.now().toISOString(),
        state,
      });
    }
  }

  /**
   * A new compaction boundary begins: returns the current state when it can be chained into the
   * new compaction (same provider and model), and removes it, so a failed compaction never leaves
   * the old state to be replayed against a transcript that moved on.
   */
  async beginBoundary(identity: ConversationIdentity, target: ReplayTarget): Promise<OpaqueProviderState | undefined> {
    const decision = await this.forReplay(identity, target);
    await this.delete(identity);
    return decision.kind === 'replay' ? decision.state : undefined;
  }

  /**
   * Forgets the conversation's state, on disk too: a request that replayed it was refused
   * (`refusesReplay`), or its checkpoint is no longer a provider-native one (a new boundary of
   * another strategy).
   */
  async discard(identity: ConversationIdentity): Promise<void> {
    await this.delete(identity);
  }

  /** Native compaction was switched off: forget every conversation's state, on disk too. */
  async clearAll(): Promise<void> {
    this.memory.clear();
    await deleteAllStateFiles(this.directory);
  }

  private async load(identity: ConversationIdentity): Promise<OpaqueProviderState | undefined> {
    const key = keyOf(identity);
    const cached = this.memory.get(key);
    if (cached !== undefined) {
      this.remember(key, cached);
      return cached;
    }
    if (!this.persist) return undefined;
    const file = await readStateFile(this.directory, identity, this.maxStateBytes + STATE_FILE_ENVELOPE_BYTES);
    if (file === undefined) return undefined;
    if (file.state.bytes > this.maxStateBytes || !isIntact(file.state)) {
      await this.delete(identity);
      return undefined;
    }
    this.remember(key, file.state);
    return file.state;
  }

  private async delete(identity: ConversationIdentity): Promise<void> {
    this.memory.delete(keyOf(identity));
    if (this.persist) await deleteStateFile(this.directory, identity);
  }

  private holdsSecret(state: OpaqueProviderState): boolean {
    const items = state.items as unknown as JsonValue;
    return JSON.stringify(this.redactor.redactJson(items)) !== JSON.stringify(items);
  }

  private remember(key: string, state: OpaqueProviderState): void {
    this.memory.delete(key);
    this.memory.set(key, state);
    while (this.memory.size > this.maxMemoryEntries) {
      const oldest = this.memory.keys().next().value;
      if (oldest === undefined) break;
      this.memory.delete(oldest);
    }
  }
}

/**
 * Whether a failed request that replayed opaque state condemns it: the provider answered and
 * refused (non-retryable), other than for the key. Cancellations, rate limits, server errors, cut
 * streams and Forge's own bugs (`unexpected`) keep the state. Takes an error's summary, as a
 * `model.step.failed` event carries it.
 */
export function refusesReplay(error: ErrorSummary): boolean {
  return !error.isRetryable && error.code !== 'cancelled' && error.code !== 'auth' && error.code !== 'unexpected';
}

/** `refusesReplay` for a thrown error; anything but a `ForgeError` keeps the state. */
export function shouldDiscardReplayedState(error: unknown): boolean {
  return ForgeError.isInstance(error) && refusesReplay(error);
}

/** The lane of a session's main conversation; subagents use their own lane ids. */
export const MAIN_LANE = 'main';

/** True when the items still hash to `itemHash` and measure `bytes` (a file edited by hand does not). */
function isIntact(state: OpaqueProviderState): boolean {
  const serialized = JSON.stringify(state.items);
  return sha256Hex(serialized) === state.itemHash && Buffer.byteLength(serialized, 'utf8') === state.bytes;
}

/** Checks both ids (they become file names) and joins them with a separator neither may contain. */
function keyOf(identity: ConversationIdentity): string {
  assertSafeId(identity.sessionId, 'session id');
  assertSafeId(identity.lane, 'conversation lane');
  return `${identity.sessionId}/${identity.lane}`;
}
