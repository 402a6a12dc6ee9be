import { truncateText } from '@forge/core/checkpoint';
import {
  InvalidInputError,
  messageSchema,
  type ErrorSummary,
  type JsonValue,
  type Message,
  type RunStatus,
  type Usage,
} from '@forge/core';
import type { Redactor } from '@forge/core/redaction';
import type { CostBreakdown } from '@forge/core/pricing';
import type { FileHandle } from 'node:fs/promises';
import type { SessionLock } from './lock.js';
import { writeAll, writeFailureHint } from '@forge/bounded-read';
import { encodeRecord } from './record-codec.js';
import { redactMessage } from './redact-message.js';
import { CorruptFileError } from './errors.js';
import { readSessionLogSync } from './log-reader.js';
import { readMessagesBefore, type WindowStart } from './session-window.js';
import { tornFilePath } from './torn-file.js';
import { sessionIndex } from './session-index.js';
import { pointLastSession } from './last-pointer.js';
import {
  checkpointSourceRecordSchema,
  MAX_ERROR_MESSAGE_CHARS,
  SESSION_SCHEMA_VERSION,
  type CheckpointSource,
  type EngineRunFacts,
  type NewSessionRecord,
  type RunEndedRecord,
  sessionRecordSchema,
  type StoredUsage,
} from './records.js';
import {
  checkSourceRange,
  type CheckpointSent,
  type SessionRun,
  type SessionStateBuilder,
  type SessionTranscript,
  type SessionWarning,
  type StoredCheckpoint,
} from './session-state.js';

export interface RunStartInput {
  readonly runId: string;
  readonly instructionsHash?: string;
  readonly model?: { readonly provider: string; readonly modelId: string };
}

/** What a run ended with; a core `RunResult` fits as it is. */
export interface RunEndInput {
  readonly runId: string;
  readonly status: RunStatus;
  readonly usage: Usage;
  readonly steps?: number | undefined;
  readonly instructionsHash?: string | undefined;
  readonly error?: ErrorSummary | undefined;
  /** What a non-native engine reported about the run (see `engineRunSchema`). */
  readonly engine?: EngineRunFacts | undefined;
  /** The checkpoint the run's last model request carried, and the SHA-256 of its text. */
  readonly checkpointSent?: CheckpointSent | undefined;
  /** Tool calls whose outputs the run began sending projected. */
  readonly projectedToolCalls?: readonly string[] | undefined;
  /** The run's cost when its model has prices (a core `RunResult` carries it). */
  readonly cost?: CostBreakdown | undefined;
  readonly unpricedSteps?: number | undefined;
}

export interface CheckpointInput {
  readonly source: CheckpointSource;
  /** The checkpoint itself, stored as given (it may carry an opaque provider item; it is not redacted). */
  readonly checkpoint: JsonValue;
}

export interface SessionWriterParts {
  readonly id: string;
  readonly directory: string;
  readonly logFile: string;
  readonly indexFile: string;
  readonly handle: FileHandle;
  readonly lock: SessionLock;
  readonly state: SessionStateBuilder;
  readonly warnings: readonly SessionWarning[];
  readonly redactor: Redactor;
  readonly now: () => number;
  /** Bytes of the log once opened: its intact records, each with its newline. */
  readonly logBytes: number;
  /** Set when only a window of the log was read (see `readSessionWindow`). */
  readonly window?: {
    readonly lastRunEndedAt: string | undefined;
    readonly start: WindowStart;
    readonly requestsBefore: number;
    readonly lastModel: LoadedSession['lastModel'];
  };
}

/** What a writer holds in memory: for a window, the messages from `firstMessage` on and the runs seen in it. */
export interface LoadedSession {
  /** The position in the transcript of `messages[0]`. */
  readonly firstMessage: number;
  readonly messages: readonly Message[];
  readonly runs: readonly SessionRun[];
  /** When the latest run that recorded its end ended, including runs before the window. */
  readonly lastRunEndedAt: string | undefined;
  /** The workspace the session's header names. */
  readonly workspaceRoot: string | null;
  /** The current checkpoint (always in the window). */
  readonly checkpoint: StoredCheckpoint | undefined;
  /** User requests before `firstMessage` (with some text; what a recap counts). */
  readonly requestsBefore: number;
  /** The model the latest run that named one started on (for a window, from its index when no run in it names one). */
  readonly lastModel: { readonly provider: string; readonly modelId: string } | undefined;
  /** For a window: the messages recorded in the last `bytes` bytes before it (see `readMessagesBefore`). */
  readonly before?: (bytes: number) => readonly Message[] | undefined;
}

/** Usage as stored: counts a provider did not report (or reported as nonsense) are left out. */
function storedUsage(usage: Usage): StoredUsage {
  const stored: Record<string, number> = {};
  for (const [key, value] of Object.entries(usage)) {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) stored[key] = value;
  }
  return stored;
}

/** The cost fields of a run's end record: `priced`, and what was priced when there was a price sheet. */
function storedCost(run: RunEndInput): Pick<RunEndedRecord, 'priced' | 'cost' | 'unpricedSteps'> {
  if (run.cost === undefined) return { priced: false };
  const { currency, freshInput, cachedInput, cacheWrite, output, total } = run.cost;
  return {
    priced: true,
    cost: { currency, freshInput, cachedInput, cacheWrite, output, total },
    ...(run.unpricedSteps === undefined || run.unpricedSteps === 0 ? {} : { unpricedSteps: run.unpricedSteps }),
  };
}

/**
 * The one writer of a session, holding its lock. Each call appends records to the log and
 * returns only after they are on disk (`fdatasync`), so whatever a call acknowledged survives a
 * crash. Appending costs the same whatever the session's size: the log is never rewritten.
 * Calls are applied in the order they are made. Call `close()` to release the lock.
 */
export class SessionWriter {
  readonly id: string;
  readonly directory: string;
  readonly logFile: string;
  /** What opening the session noticed (a torn last record dropped, a stale lock recovered). */
  readonly openWarnings: readonly SessionWarning[];
  private readonly parts: SessionWriterParts;
  private state: SessionStateBuilder;
  private logBytes: number;
  private window: SessionWriterParts['window'];
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private failure: Error | undefined;

  constructor(parts: SessionWriterParts) {
    this.parts = parts;
    this.state = parts.state;
    this.logBytes = parts.logBytes;
    this.window = parts.window;
    this.id = parts.id;
    this.directory = parts.directory;
    this.logFile = parts.logFile;
    this.openWarnings = parts.warnings;
  }

  /**
   * The transcript so far, oldest first (what was stored: redacted). A writer that opened only a
   * window reads the rest of the log first (see `loaded` for what is in memory without that).
   */
  get messages(): readonly Message[] {
    return this.whole().messages;
  }

  /** Messages in the transcript, loaded or not. */
  get messageCount(): number {
    return this.state.messageCount;
  }

  /** True while only a window of the log is in memory (opened with `window`). */
  get windowed(): boolean {
    return this.window !== undefined;
  }

  /** What is in memory, without reading more of the log: the whole session unless `windowed`. */
  get loaded(): LoadedSession {
    const state = this.state;
    const ended = state.runs.flatMap((run) => (run.endedAt === undefined ? [] : [run.endedAt]));
    const lastRunEndedAt = [this.window?.lastRunEndedAt, ...ended].reduce<string | undefined>(
      (latest, at) => (at !== undefined && (latest === undefined || Date.parse(at) > Date.parse(latest)) ? at : latest),
      undefined,
    );
    return {
      firstMessage: state.firstMessage,
      messages: state.messages,
      runs: state.runs,
      lastRunEndedAt,
      workspaceRoot: state.workspaceRoot,
      checkpoint: state.checkpoint,
      requestsBefore: this.window?.requestsBefore ?? 0,
      lastModel: state.runs.findLast((run) => run.model !== undefined)?.model ?? this.window?.lastModel,
      ...(this.window === undefined ? {} : { before: this.messagesBefore(this.window.start) }),
    };
  }

  private messagesBefore(start: WindowStart): (bytes: number) => readonly Message[] | undefined {
    return (bytes) => readMessagesBefore(this.logFile, start, bytes);
  }

  /** The current checkpoint: the latest one durably written. */
  get checkpoint(): StoredCheckpoint | undefined {
    return this.state.checkpoint;
  }

  /** The whole session as `loadTranscript` would return it now (a windowed writer reads the rest of the log first). */
  transcript(): SessionTranscript {
    const transcript = this.whole().build({ warnings: this.openWarnings });
    if (transcript === undefined) throw new Error('A session writer without a header; this is a bug in Forge.');
    return transcript;
  }

  /**
   * Appends messages to the transcript. Each is validated and redacted first; the stored
   * messages are returned (use them, not the originals, so memory matches disk).
   */
  async appendMessages(
    messages: readonly Message[],
    options: { readonly runId?: string } = {},
  ): Promise<readonly Message[]> {
    const stored = messages.map((message, position) => {
      const parsed = messageSchema.safeParse(message);
      if (!parsed.success) {
        throw new InvalidInputError({
          message: `Message ${position} to append is not a valid message: ${parsed.error.issues[0]?.message ?? 'unknown problem'}.`,
        });
      }
      return redactMessage(parsed.data, this.parts.redactor);
    });
    return this.enqueue(async () => {
      const first = this.state.messageCount;
      await this.write(
        stored.map((message, position) => ({
          type: 'message' as const,
          at: this.timestamp(),
          index: first + position,
          ...(options.runId === undefined ? {} : { runId: options.runId }),
          message,
        })),
      );
      return stored;
    });
  }

  /** Records that a run began (before its messages). */
  recordRunStart(run: RunStartInput): Promise<void> {
    return this.enqueue(() =>
      this.write([
        {
          type: 'run.started',
          at: this.timestamp(),
          runId: run.runId,
          ...(run.instructionsHash === undefined ? {} : { instructionsHash: run.instructionsHash }),
          ...(run.model === undefined ? {} : { model: { provider: run.model.provider, modelId: run.model.modelId } }),
        },
      ]),
    );
  }

  /** Records how a run ended. A failure's message is redacted and cut to a bounded length. */
  recordRunEnd(run: RunEndInput): Promise<void> {
    const { redactor } = this.parts;
    return this.enqueue(() =>
      this.write([
        {
          type: 'run.ended',
          at: this.timestamp(),
          runId: run.runId,
          status: run.status,
          ...(run.steps === undefined ? {} : { steps: run.steps }),
          usage: storedUsage(run.usage),
          ...(run.instructionsHash === undefined ? {} : { instructionsHash: run.instructionsHash }),
          ...(run.error === undefined
            ? {}
            : {
                error: {
                  code: truncateText(run.error.code, 200),
                  message: truncateText(redactor.redact(run.error.message), MAX_ERROR_MESSAGE_CHARS),
                  isRetryable: run.error.isRetryable,
                },
              }),
          ...(run.engine === undefined ? {} : { engine: run.engine }),
          ...(run.checkpointSent === undefined
            ? {}
            : { checkpointSent: { id: run.checkpointSent.id, textSha256: run.checkpointSent.textSha256 } }),
          ...(run.projectedToolCalls === undefined || run.projectedToolCalls.length === 0
            ? {}
            : { projectedToolCalls: [...run.projectedToolCalls] }),
          ...storedCost(run),
        },
      ]),
    );
  }

  /**
   * Stores a derived checkpoint. It becomes the current one only once its record is on disk; if
   * writing fails, the previous checkpoint stays current.
   */
  async recordCheckpoint(input: CheckpointInput): Promise<StoredCheckpoint> {
    const source = checkpointSourceRecordSchema.safeParse(input.source);
    if (!source.success) {
      throw new InvalidInputError({
        message: `Checkpoint source is not valid: ${source.error.issues[0]?.message ?? 'unknown problem'}.`,
      });
    }
    return this.enqueue(async () => {
      const problem = checkSourceRange(source.data, this.state.messageCount);
      if (problem !== undefined) throw new InvalidInputError({ message: `Cannot store the checkpoint: ${problem}.` });
      await this.write([
        { type: 'checkpoint', at: this.timestamp(), source: source.data, checkpoint: input.checkpoint },
      ]);
      return this.state.checkpoint as StoredCheckpoint;
    });
  }

  /** Waits for pending writes, closes the log and releases the lock. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    try {
      await this.parts.handle.close();
      // Still holding the lock: the index takes in exactly what this writer appended.
      const index = await sessionIndex(this.logFile, this.parts.indexFile).catch(() => undefined);
      if (index !== undefined && index.messageCount > 0 && index.workspaceRoot !== null)
        await pointLastSession(this.directory, index.workspaceRoot, this.id);
    } finally {
      await this.parts.lock.release();
    }
  }

  /**
   * The state of the whole log. A windowed writer reads the log back from its start, up to what
   * it has applied (we hold the lock: nothing else appends), once; from then on it holds it all.
   */
  private whole(): SessionStateBuilder {
    if (this.window === undefined) return this.state;
    const parsed = readSessionLogSync({ file: this.logFile, sessionId: this.id, bytes: this.logBytes });
    if (parsed.state.nextSeq !== this.state.nextSeq || parsed.state.messageCount !== this.state.messageCount)
      throw new CorruptFileError({
        file: this.logFile,
        problem: `reading it whole found ${parsed.state.nextSeq} records where its window ended at ${this.state.nextSeq}; was it changed while open?`,
      });
    this.state = parsed.state;
    this.window = undefined;
    return this.state;
  }

  private timestamp(): string {
    return new Date(this.parts.now()).toISOString();
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    if (this.closed) {
      return Promise.reject(
        new InvalidInputError({ message: `Session ${this.id} is closed; open it again to write.` }),
      );
    }
    const result = this.queue.then(() => {
      if (this.failure !== undefined) throw this.failure;
      return task();
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async write(records: readonly NewSessionRecord[]): Promise<void> {
    const { handle } = this.parts;
    const next = this.state.nextSeq;
    const numbered = records.map((record, position) => {
      const parsed = sessionRecordSchema.safeParse({
        v: SESSION_SCHEMA_VERSION,
        seq: next + position,
        ...record,
      });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new InvalidInputError({
          message: `Cannot store a ${record.type} record in session ${this.id}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is not valid'}.`,
        });
      }
      return parsed.data;
    });
    const bytes = Buffer.from(numbered.map(encodeRecord).join(''), 'utf8');
    try {
      await writeAll(handle, bytes);
      await handle.datasync();
    } catch (error) {
      this.failure = new Error(
        `Writing to ${this.logFile} failed (${error instanceof Error ? error.message : String(error)})${writeFailureHint(error)}. Nothing more is written to it; ` +
          `open the session again to continue: a partly written record is cut off on open, its bytes kept in ${tornFilePath(this.logFile)}.`,
        { cause: error },
      );
      throw this.failure;
    }
    // The state now, not before the write: a windowed writer may have read its whole log meanwhile.
    this.logBytes += bytes.length;
    for (const record of numbered) {
      const problem = this.state.apply(record);
      if (problem !== undefined)
        throw new Error(`The session writer produced an invalid record (${problem}); this is a bug in Forge.`);
    }
  }
}
