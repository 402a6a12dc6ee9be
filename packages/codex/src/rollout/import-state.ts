/*
 * The deterministic, host-owned state an imported Codex rollout reduces to: the part of a Forge
 * `forge-state` checkpoint that can be derived without any model (seed 000, phase 0). Everything
 * is plain JSON with fixed key order and sorted or bounded lists, so the same rollout (and the same
 * workspace files) always serializes to the same bytes. Line numbers (`seq`) are 1-based lines of
 * the rollout file.
 */

/** The user message a task pointer comes from: its rollout line and its index in the transcript. */
export interface UserEvidence {
  readonly source: 'user';
  readonly line: number;
  readonly messageIndex: number;
}

/** A command Codex ran. Exit codes are historical: they say what happened then, not what is true now. */
export interface CommandRecord {
  readonly callId: string;
  readonly command: string;
  readonly exitCode: number | null;
  readonly status: 'succeeded' | 'failed' | 'declined' | 'no-result';
  readonly seq: number;
  /** Index of the transcript message holding the result (or of the next message, for no result). */
  readonly messageIndex: number;
  readonly label: 'historical';
}

/** A file a patch touched. `hash` is computed by the importer from the workspace, never taken from the log. */
export interface FileArtifact {
  readonly uri: string;
  readonly kind: 'file';
  readonly lastChange: 'add' | 'update' | 'delete' | 'move-from' | 'move-to';
  readonly lastPatchStatus: 'applied' | 'failed' | 'declined' | 'no-result';
  readonly patches: number;
  readonly lastObservedSeq: number;
  readonly lastMessageIndex: number;
  /** Lowercase hex SHA-256 of the file as it is in the workspace now; null when unknown (facts about it are SUSPECT). */
  readonly hash: string | null;
  readonly hashStatus: 'current' | 'missing' | 'unknown';
}

/** "Tried X; failed because Y." */
export interface FailureRecord {
  readonly seq: number;
  readonly messageIndex: number;
  readonly kind: 'command' | 'patch' | 'turn' | 'error';
  readonly what: string;
  readonly why: string;
}

export interface TokenCounts {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly reasoningOutputTokens: number;
  readonly totalTokens: number;
}

/** One `token_count` report as Codex wrote it: an engine-owned fact. */
export interface TokenUsageRecord {
  readonly seq: number;
  readonly total: TokenCounts;
  readonly last: TokenCounts | null;
  readonly modelContextWindow: number | null;
}

/**
 * A point where Codex compacted its context. `local`: Codex summarized with the model (the summary
 * is recorded by hash only); `remote`: the provider returned an opaque item (hash only, never the
 * content); `legacy`: an older file that kept only a summary message. `transcriptIndex` is the
 * number of transcript messages before the boundary.
 */
export interface CompactionRecord {
  readonly seq: number;
  readonly kind: 'local' | 'remote' | 'legacy';
  readonly transcriptIndex: number;
  readonly summarySha256: string | null;
  readonly summaryChars: number;
  readonly opaqueSha256: string | null;
  /** Items of Codex's replacement history (what its model saw after compacting), when recorded. */
  readonly replacementItems: number | null;
}

export interface CodexImportState {
  readonly schemaVersion: 1;
  readonly kind: 'codex-rollout-import';
  readonly source: {
    readonly sessionId: string | null;
    readonly cliVersion: string | null;
    readonly originator: string | null;
    readonly modelProvider: string | null;
    readonly model: string | null;
    readonly cwd: string | null;
    /** `current`: written by a Codex with item_completed/world_state records (0.1xx); `legacy`: older. */
    readonly generation: 'current' | 'legacy' | 'unknown';
    readonly bytes: number;
    readonly sha256: string;
    readonly lines: number;
    /** The last line applied. */
    readonly seq: number;
  };
  readonly skipped: {
    readonly malformedLines: number;
    readonly unknownLines: number;
    /** Sorted, at most 32: the line or item types the importer did not know. */
    readonly unknownTypes: readonly string[];
    readonly harnessMessages: number;
    readonly orphanToolOutputs: number;
    readonly tornTail: boolean;
    /** Lines longer than the import's line limit (`MAX_ROLLOUT_LINE_BYTES` by default), skipped unread. */
    readonly oversizedLines: number;
  };
  readonly task: { readonly text: string; readonly evidence: UserEvidence } | null;
  readonly commands: { readonly total: number; readonly recent: readonly CommandRecord[] };
  /** Sorted by uri. */
  readonly artifacts: readonly FileArtifact[];
  /** Most recently touched first, unique, bounded. */
  readonly recentArtifacts: readonly string[];
  readonly failures: { readonly total: number; readonly recent: readonly FailureRecord[] };
  readonly tokenUsage: {
    readonly reports: number;
    readonly latest: TokenUsageRecord | null;
    readonly history: readonly TokenUsageRecord[];
  };
  readonly compactions: { readonly total: number; readonly recent: readonly CompactionRecord[] };
  readonly transcript: {
    readonly messages: number;
    readonly toolCalls: number;
    /** SHA-256 of the transcript as JSON Lines (one message per line). */
    readonly sha256: string;
  };
  readonly workspace: { readonly root: string | null; readonly hashed: boolean };
}

/** Bounds of the lists in the state. Eviction keeps the most recent entries. */
export const importStateLimits = {
  recentCommands: 64,
  recentFailures: 32,
  tokenUsageHistory: 64,
  recentCompactions: 32,
  artifacts: 512,
  recentArtifacts: 16,
  unknownTypes: 32,
  taskChars: 2000,
  commandChars: 400,
  failureChars: 240,
} as const;
