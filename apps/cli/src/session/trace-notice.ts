import { formatBytes } from '@forge/bounded-read';
import type { TraceRetention } from '@forge/config';
import { traceUsage } from '@forge/persistence';
import type { CliIo } from '../io.js';

/** Traces past this size in FORGE_HOME earn a one-line notice after a run. */
export const TRACE_NOTICE_BYTES = 1024 * 1024 * 1024;

/**
 * After a run: one line on stderr when FORGE_HOME's traces pass `TRACE_NOTICE_BYTES`, saying what
 * `forge gc` would do. Costs one directory listing while there are no more traces than
 * `traces.keepRuns` (a home that small is never pruned anyway). Never fails the run.
 */
export async function noticeTraceUsage(io: CliIo, forgeHome: string, retention: TraceRetention): Promise<void> {
  try {
    const usage = await traceUsage(forgeHome, retention.keepRuns);
    if (usage === undefined || usage.bytes < TRACE_NOTICE_BYTES) return;
    io.stderr.write(
      `forge: notice: ${usage.count} run traces take ${formatBytes(usage.bytes)} in ${forgeHome}; 'forge gc' prunes those older than ${retention.keepDays} days (traces.keepDays) and never a session log\n`,
    );
  } catch {
    // A notice is not worth failing a run for.
  }
}
