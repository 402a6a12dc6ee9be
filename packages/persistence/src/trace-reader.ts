import { EVENT_SCHEMA_VERSION, type EventEnvelope } from '@forge/core';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { CorruptFileError, UnsupportedSchemaError } from './errors.js';
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
  /** The last line was cut short (the run's process died mid-write, or the run is still going). */
  | { readonly kind: 'torn'; readonly line: number; readonly message: string };

type ParsedLine = { readonly ok: true; readonly envelope: EventEnvelope } | { readonly ok: false; readonly problem: string; readonly version?: number };

function parseLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'the line is not valid JSON' };
  }
  const parsed = envelopeSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problem: `not an event envelope: ${parsed.error.issues[0]?.message ?? 'unknown problem'}` };
  if (parsed.data.schemaVersion > EVENT_SCHEMA_VERSION) return { ok: false, problem: 'newer schema', version: parsed.data.schemaVersion };
  return { ok: true, envelope: parsed.data as unknown as EventEnvelope };
}

/**
 * Streams a run's trace line by line, without loading the whole file. A damaged last line is
 * reported as a `torn` entry; a damaged line followed by others throws `CorruptFileError`
 * naming the file and line.
 */
export async function* readTrace(home: string, runId: string): AsyncGenerator<TraceEntry> {
  const file = traceFile(home, runId);
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY });
  let pending: { line: number; problem: string } | undefined;
  let number = 0;
  for await (const text of lines) {
    number += 1;
    if (pending !== undefined) throw new CorruptFileError({ file, line: pending.line, problem: pending.problem });
    const parsed = parseLine(text);
    if (parsed.ok) {
      yield { kind: 'event', line: number, envelope: parsed.envelope };
    } else if (parsed.version !== undefined) {
      throw new UnsupportedSchemaError({ file, version: parsed.version, supported: [EVENT_SCHEMA_VERSION] });
    } else {
      pending = { line: number, problem: parsed.problem };
    }
  }
  if (pending !== undefined) {
    yield { kind: 'torn', line: pending.line, message: `Ignored an incomplete last line ${pending.line} of ${file} (${pending.problem}).` };
  }
}
