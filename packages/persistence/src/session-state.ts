import type { ErrorSummary, JsonValue, Message, RunStatus, Usage } from '@forge/core';
import type { CheckpointSource, EngineRunFacts, SessionHeaderRecord, SessionRecord, StoredUsage } from './records.js';

/** Something the loader noticed and worked around without losing an intact record. */
export interface SessionWarning {
  readonly code: 'torn_tail' | 'v1_leftover' | 'lock_recovered';
  readonly message: string;
}

/** One run of the session as its boundary records describe it. */
export interface SessionRun {
  readonly runId: string;
  readonly startedAt: string | undefined;
  /** Undefined while the run goes on, or when the process died before recording its end. */
  readonly endedAt: string | undefined;
  readonly status: RunStatus | undefined;
  readonly instructionsHash: string | undefined;
  readonly model: { readonly provider: string; readonly modelId: string } | undefined;
  readonly steps: number | undefined;
  readonly usage: Usage | undefined;
  readonly error: ErrorSummary | undefined;
  /** What a non-native engine reported (the Codex thread it used, its own context report); undefined for native runs. */
  readonly engine: EngineRunFacts | undefined;
  /** Transcript length when the run started (its messages start here). */
  readonly firstMessageIndex: number;
  /** The checkpoint the run's last model request carried, when it sent one (mode `compact`). */
  readonly checkpointSent: CheckpointSent | undefined;
  /** Tool calls whose outputs the run began sending projected (mode `compact`). */
  readonly projectedToolCalls: readonly string[] | undefined;
}

/** A checkpoint as a request carried it: its id and the SHA-256 of its rendered text. */
export interface CheckpointSent {
  readonly id: string;
  readonly textSha256: string;
}

/** The current derived checkpoint: the latest checkpoint record that was written completely. */
export interface StoredCheckpoint {
  readonly source: CheckpointSource;
  /** Opaque to the store; the checkpoint module owns its schema. */
  readonly checkpoint: JsonValue;
  readonly recordedAt: string;
}

/** Everything a session holds, as loaded from disk. */
export interface SessionTranscript {
  readonly id: string;
  /** The schema of the files read: 1 for a v1 file not migrated yet, else 2. */
  readonly schemaVersion: 1 | 2;
  readonly createdAt: string;
  /** Time of the last record. */
  readonly updatedAt: string;
  readonly workspaceRoot: string | null;
  /** The canonical transcript, oldest first. */
  readonly messages: readonly Message[];
  readonly runs: readonly SessionRun[];
  readonly checkpoint: StoredCheckpoint | undefined;
  readonly migratedFrom: SessionHeaderRecord['migratedFrom'];
  readonly warnings: readonly SessionWarning[];
}

export function usageFromStored(stored: StoredUsage): Usage {
  return {
    inputTokens: stored.inputTokens,
    cacheReadTokens: stored.cacheReadTokens,
    cacheWriteTokens: stored.cacheWriteTokens,
    outputTokens: stored.outputTokens,
    reasoningTokens: stored.reasoningTokens,
  };
}

type MutableRun = { -readonly [Key in keyof SessionRun]: SessionRun[Key] };

/**
 * Folds records, in file order, into a session. Each `apply` checks the record fits what came
 * before (numbering, message positions, checkpoint ranges) and returns the problem if not.
 */
export class SessionStateBuilder {
  private header: SessionHeaderRecord | undefined;
  private readonly messageList: Message[] = [];
  private count = 0;
  private readonly runList: MutableRun[] = [];
  private readonly runsById = new Map<string, MutableRun>();
  private current: StoredCheckpoint | undefined;
  private lastAt = '';
  private records = 0;
  private first = 0;

  /**
   * `keepMessages: false` (a writer that only appends, such as an import) counts messages without
   * keeping them, so memory stays flat however long the transcript grows; `messages` is then empty.
   */
  constructor(
    private readonly expectedId: string,
    private readonly options: { readonly keepMessages?: boolean } = {},
  ) {}

  /** Messages applied so far (whether or not they are kept). */
  get messageCount(): number {
    return this.count;
  }

  /**
   * The position in the transcript of `messages[0]`: 0 for a whole log, more for a window (a
   * resume that read only the current checkpoint and the records after it; see `startWindow`).
   */
  get firstMessage(): number {
    return this.first;
  }

  /**
   * Continues from a log's header as if the records before `at` had been applied, without them:
   * the records read next start at record `at.seq` and message `at.messageIndex`. Messages before
   * it are not held (`firstMessage` says where `messages` starts), and runs that ended before it
   * are not known. Only before anything else but the header was applied.
   */
  startWindow(at: { readonly seq: number; readonly messageIndex: number }): void {
    if (this.header === undefined || this.records !== 1)
      throw new Error('A session window starts right after the header; this is a bug in Forge.');
    this.records = at.seq;
    this.count = at.messageIndex;
    this.first = at.messageIndex;
  }

  /** Number of records applied; the `seq` the next record must carry. */
  get nextSeq(): number {
    return this.records;
  }

  get messages(): readonly Message[] {
    return this.messageList;
  }

  get checkpoint(): StoredCheckpoint | undefined {
    return this.current;
  }

  /** The workspace the header names; null before the header or when it names none. */
  get workspaceRoot(): string | null {
    return this.header?.workspaceRoot ?? null;
  }

  /** The runs applied so far (for a window: those started or ended in it). */
  get runs(): readonly SessionRun[] {
    return this.runList;
  }

  /** Applies one record, or returns why it does not fit (and changes nothing). */
  apply(record: SessionRecord): string | undefined {
    if (record.seq !== this.records) return `expected record number ${this.records}, found ${record.seq}`;
    if (this.header === undefined && record.type !== 'session') return 'the first record must be the session header';
    switch (record.type) {
      case 'session':
        if (this.header !== undefined) return 'a second session header';
        if (record.id !== this.expectedId)
          return `the header names session ${JSON.stringify(record.id)}, not ${this.expectedId}`;
        this.header = record;
        break;
      case 'message':
        if (record.index !== this.count) {
          return `message number ${record.index} where number ${this.count} was expected`;
        }
        if (this.options.keepMessages !== false) this.messageList.push(record.message);
        this.count += 1;
        break;
      case 'run.started': {
        const run = this.run(record.runId);
        run.startedAt = record.at;
        run.instructionsHash = record.instructionsHash;
        run.model = record.model;
        break;
      }
      case 'run.ended': {
        const run = this.run(record.runId);
        run.endedAt = record.at;
        run.status = record.status;
        run.steps = record.steps;
        run.usage = usageFromStored(record.usage);
        run.error = record.error;
        run.engine = record.engine;
        run.checkpointSent = record.checkpointSent;
        run.projectedToolCalls = record.projectedToolCalls;
        if (record.instructionsHash !== undefined) run.instructionsHash = record.instructionsHash;
        break;
      }
      case 'checkpoint': {
        const problem = checkSourceRange(record.source, this.count);
        if (problem !== undefined) return problem;
        this.current = { source: record.source, checkpoint: record.checkpoint, recordedAt: record.at };
        break;
      }
    }
    this.records += 1;
    this.lastAt = record.at;
    return undefined;
  }

  /** The session as built so far; undefined before the header. */
  build(options: { warnings: readonly SessionWarning[] }): SessionTranscript | undefined {
    const header = this.header;
    if (header === undefined) return undefined;
    return {
      id: header.id,
      schemaVersion: 2,
      createdAt: header.createdAt,
      updatedAt: this.lastAt,
      workspaceRoot: header.workspaceRoot,
      messages: this.messageList,
      runs: this.runList,
      checkpoint: this.current,
      migratedFrom: header.migratedFrom,
      warnings: options.warnings,
    };
  }

  private run(runId: string): MutableRun {
    let run = this.runsById.get(runId);
    if (run === undefined) {
      run = {
        runId,
        startedAt: undefined,
        endedAt: undefined,
        status: undefined,
        instructionsHash: undefined,
        model: undefined,
        steps: undefined,
        usage: undefined,
        error: undefined,
        engine: undefined,
        firstMessageIndex: this.count,
        checkpointSent: undefined,
        projectedToolCalls: undefined,
      };
      this.runsById.set(runId, run);
      this.runList.push(run);
    }
    return run;
  }
}

/** Why a checkpoint's source range cannot describe a transcript of `messageCount` messages, if it cannot. */
export function checkSourceRange(source: CheckpointSource, messageCount: number): string | undefined {
  if (source.summarizedThrough > source.tailStart) {
    return `checkpoint summarizes through message ${source.summarizedThrough} but its tail starts at ${source.tailStart}`;
  }
  if (source.tailStart > source.messageCount) {
    return `checkpoint tail starts at ${source.tailStart}, after its last message ${source.messageCount}`;
  }
  if (source.messageCount > messageCount) {
    return `checkpoint covers ${source.messageCount} messages but the transcript had ${messageCount} when it was written`;
  }
  return undefined;
}
