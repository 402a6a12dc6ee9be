import { assertSafeId, InvalidInputError, type EventEnvelope, type JsonValue } from '@forge/core';
import { createRedactor, type Redactor } from '@forge/core/redaction';
import { closeSync, constants, fchmodSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ensureForgeHome, forgeHomeLayout } from './home.js';
import { isErrorCode, PRIVATE_FILE_MODE } from './private-fs.js';
import { syncDirectory } from '@forge/bounded-read';

/** Event types a trace leaves out: they would copy the transcript into the trace. */
export const TRACE_EXCLUDED_EVENTS: ReadonlySet<string> = new Set(['model.text.delta']);

/** Path of a run's trace file. The run id is checked before it becomes part of the path. */
export function traceFile(home: string, runId: string): string {
  assertSafeId(runId, 'run id');
  return join(forgeHomeLayout(home).runs, `${runId}.jsonl`);
}

/**
 * An envelope a trace accepts: a core event, or an event of an engine that runs turns for Forge
 * (such as Codex's `codex.usage.recorded`), as long as it has a `type` and is plain JSON.
 */
export type EngineEventEnvelope = Omit<EventEnvelope, 'event'> & {
  readonly event: { readonly type: string; readonly [field: string]: unknown };
};

/** Receives engine event envelopes; every core `EventListener` argument fits. */
export type EngineEventListener = (envelope: EngineEventEnvelope) => void;

/** Writes one run's events to `runs/<run-id>.jsonl` as they happen. */
export interface TraceWriter {
  readonly runId: string;
  readonly file: string;
  /** Pass as `onEvent` to `runAgent` (or another engine). Never throws: a write failure is reported by `close()`. */
  readonly listener: EngineEventListener;
  /** Flushes the trace to disk (`fdatasync`) and closes it; rejects if any write failed. */
  close(): Promise<void>;
}

/**
 * Creates the trace of a run: a new file (0600) holding one event envelope per line, in the
 * order emitted. Text deltas are left out and every string is redacted, so a trace holds budget
 * metadata, hashes and outcomes, not the conversation or secrets. Lines are written as events
 * arrive (the file is readable while the run goes on) and flushed to disk at close.
 */
export async function createTraceWriter(
  home: string,
  runId: string,
  options: { readonly redactor?: Redactor } = {},
): Promise<TraceWriter> {
  const file = traceFile(home, runId);
  const layout = await ensureForgeHome(home);
  const redactor = options.redactor ?? createRedactor();
  let descriptor: number;
  try {
    descriptor = openSync(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL,
      PRIVATE_FILE_MODE,
    );
  } catch (error) {
    if (!isErrorCode(error, 'EEXIST')) throw error;
    throw new InvalidInputError({
      message: `A trace for run ${runId} already exists (${file}); every run needs a new run id.`,
      cause: error,
    });
  }
  fchmodSync(descriptor, PRIVATE_FILE_MODE);
  let open = true;
  let failure: unknown;

  const listener: EngineEventListener = (envelope) => {
    if (!open || failure !== undefined || TRACE_EXCLUDED_EVENTS.has(envelope.event.type)) return;
    try {
      const redacted = redactor.redactJson(envelope as unknown as JsonValue);
      const bytes = Buffer.from(`${JSON.stringify(redacted)}\n`, 'utf8');
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(descriptor, bytes, offset, bytes.length - offset);
    } catch (error) {
      failure = error;
    }
  };

  const close = async (): Promise<void> => {
    if (!open) return;
    open = false;
    try {
      if (failure === undefined) fdatasyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    await syncDirectory(layout.runs);
    if (failure !== undefined) {
      const reason = failure instanceof Error ? failure.message : String(failure);
      throw new Error(
        `Writing the trace ${file} failed (${reason}); the trace is incomplete. The run itself was not affected.`,
        { cause: failure },
      );
    }
  };

  return { runId, file, listener, close };
}
