import { createId, EVENT_SCHEMA_VERSION, type CompactionEvent } from '@forge/core';
import type { Redactor } from '@forge/core/redaction';
import { createTraceWriter } from '@forge/persistence';

/** Manual compactions of a session have traces `runs/compact_<session-id>_<time>_<hex>.jsonl`. */
export function manualCompactionTracePrefix(sessionId: string): string {
  return `compact_${sessionId}_`;
}

/** Receives a manual compaction's events as they happen and writes them to its own trace. */
export interface CompactionTrace {
  readonly listener: (event: CompactionEvent) => void;
  /** Flushes and closes the trace; a failure to write it is a warning, never a failed compaction. */
  close(): Promise<string | undefined>;
}

/**
 * Opens the trace of one `forge compact` or `/compact` of `sessionId`, so `forge inspect` of the
 * session lists the compaction between its runs. Events are redacted like every trace.
 */
export async function openCompactionTrace(options: {
  readonly forgeHome: string;
  readonly sessionId: string;
  readonly redactor: Redactor;
}): Promise<CompactionTrace> {
  const runId = createId(manualCompactionTracePrefix(options.sessionId).slice(0, -1));
  const writer = await createTraceWriter(options.forgeHome, runId, { redactor: options.redactor });
  let sequence = 0;
  return {
    listener: (event) => {
      writer.listener({
        schemaVersion: EVENT_SCHEMA_VERSION,
        runId,
        sessionId: options.sessionId,
        sequence: sequence++,
        timestamp: new Date().toISOString(),
        event,
      });
    },
    async close() {
      try {
        await writer.close();
        return undefined;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
  };
}
