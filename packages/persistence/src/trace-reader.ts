import { EVENT_SCHEMA_VERSION, type EventEnvelope } from '@forge/core';
import { lineText } from '@forge/bounded-read';
import { z } from 'zod';
import { CorruptFileError, UnsupportedSchemaError } from './errors.js';
import { readStoredLines } from './stored-file.js';
import { traceFile } from './trace-writer.js';

/*
 * Event payloads are checked loosely (an object with a `type`): a trace written by a newer Forge
 * may carry event types this one does not know, and `forge inspect` should still show them.
 */
const envelopeSchema = z.object({
  schemaVersion: z.number().int(),
  runId: z.string().min(1),
  sessionId: z.string().min(1).optional(),
  sequence: z.number().int().min(0),
  timestamp: z.string(),
  event: z.looseObject({ type: z.string().min(1) }),
});

export type TraceEntry =
  | { readonly kind: 'event'; readonly line: number; readonly envelope: EventEnvelope }
  /** The last line was cut short, with no newline after it (the run's process died mid-write, or the run is still going). */
  | { readonly kind: 'torn'; readonly line: number; readonly message: string };

type ParsedLine =
  | { readonly ok: true; readonly envelope: EventEnvelope }
  | { readonly ok: false; readonly problem: string; readonly version?: number };

function parseLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'the line is not valid JSON' };
  }
  const parsed = envelopeSchema.safeParse(value);
  if (!parsed.success)
    return { ok: false, problem: `not an event envelope: ${parsed.error.issues[0]?.message ?? 'unknown problem'}` };
  if (parsed.data.schemaVersion > EVENT_SCHEMA_VERSION)
    return { ok: false, problem: 'newer schema', version: parsed.data.schemaVersion };
  return { ok: true, envelope: parsed.data as unknown as EventEnvelope };
}

/**
 * Streams a run's trace line by line, without loading the whole file. A last line cut short (no
 * newline after it, as a write cut short by a crash leaves it) is reported as a `torn` entry; any
 * damaged line that ends with a newline — blank, not JSON, not an envelope, too long — throws
 * `CorruptFileError` naming the file and line, the last line included: it was written whole.
 */
export async function* readTrace(home: string, runId: string): AsyncGenerator<TraceEntry> {
  const file = traceFile(home, runId);
  for await (const batch of readStoredLines(file)) {
    for (const line of batch) {
      const parsed: ParsedLine =
        line.kind === 'oversized'
          ? { ok: false, problem: `the line is ${line.byteLength} bytes long, longer than any event` }
          : parseLine(lineText(line.bytes));
      if (parsed.ok) {
        yield { kind: 'event', line: line.number, envelope: parsed.envelope };
      } else if (parsed.version !== undefined) {
        throw new UnsupportedSchemaError({ file, version: parsed.version, supported: [EVENT_SCHEMA_VERSION] });
      } else if (line.terminated) {
        throw new CorruptFileError({ file, line: line.number, problem: parsed.problem });
      } else {
        yield {
          kind: 'torn',
          line: line.number,
          message: `Ignored an incomplete last line ${line.number} of ${file} (${parsed.problem}, and no newline after it).`,
        };
      }
    }
  }
}
