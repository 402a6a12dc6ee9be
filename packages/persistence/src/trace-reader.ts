import { EVENT_SCHEMA_VERSION, type EventEnvelope } from '@forge/core';
import { anyEventEnvelopeSchema } from '@forge/core/events';
import { lineText, type Line } from '@forge/bounded-read';
import type { z } from 'zod';
import { CorruptFileError, UnsupportedSchemaError } from './errors.js';
import { readStoredLines } from './stored-file.js';
import { traceFile } from './trace-writer.js';

/** What a trace line is checked with: an envelope schema, or a function that picks one by event type. */
export type EnvelopeParser<Envelope> = (
  value: unknown,
) => { readonly success: true; readonly data: Envelope } | { readonly success: false; readonly error: z.ZodError };

/** One line of a trace, classified. */
export type TraceLine<Envelope> =
  | { readonly kind: 'event'; readonly line: number; readonly envelope: Envelope }
  /**
   * The line is not an event envelope. `terminated` is false for a last line with no newline after
   * it: a write cut short (the run's process died, or the run is still going). Anything else was
   * written whole, so it is damage.
   */
  | { readonly kind: 'damaged'; readonly line: number; readonly terminated: boolean; readonly problem: string }
  /** The line is from an event schema newer than this Forge reads. */
  | { readonly kind: 'newer_schema'; readonly line: number; readonly version: number };

function describeOversized(line: Extract<Line, { kind: 'oversized' }>): string {
  return `the line is ${(line.byteLength / (1024 * 1024)).toFixed(1)} MiB long, longer than any event`;
}

/** The first schema issue in words: the event's field when the envelope is fine, else the envelope's. */
function describeIssue(value: unknown, error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue?.path.map(String) ?? [];
  const message = issue?.message ?? 'unexpected shape';
  if (path[0] === 'event' && path.length > 1) {
    const type = (value as { readonly event: { readonly type: string } }).event.type;
    return `a ${type} event with an unexpected shape (${path.slice(1).join('.')}: ${message})`;
  }
  return `not an event envelope${path.length === 0 ? '' : ` at ${path.join('.')}`}: ${message}`;
}

function classify<Envelope>(line: Line, parse: EnvelopeParser<Envelope>): TraceLine<Envelope> {
  const damaged = (problem: string): TraceLine<Envelope> => ({
    kind: 'damaged',
    line: line.number,
    terminated: line.terminated,
    problem,
  });
  if (line.kind === 'oversized') return damaged(describeOversized(line));
  const text = lineText(line.bytes);
  if (text.trim() === '') return damaged('the line is blank');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return damaged(`not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const version =
    typeof value === 'object' && value !== null
      ? (value as { readonly schemaVersion?: unknown }).schemaVersion
      : undefined;
  if (typeof version === 'number' && version > EVENT_SCHEMA_VERSION)
    return { kind: 'newer_schema', line: line.number, version };
  const parsed = parse(value);
  return parsed.success
    ? { kind: 'event', line: line.number, envelope: parsed.data }
    : damaged(describeIssue(value, parsed.error));
}

const anyEnvelope: EnvelopeParser<EventEnvelope> = (value) => {
  const parsed = anyEventEnvelopeSchema.safeParse(value);
  return parsed.success ? { success: true, data: parsed.data as unknown as EventEnvelope } : parsed;
};

/**
 * Streams a trace file line by line, without loading it whole, and says what each line is: an
 * event (checked by `parse`; by default the envelope, and of the event only its `type`, so a
 * trace from a newer Forge or with an engine's own events still reads), damage, or a line of a
 * newer event schema. Lines come in batches, as `readStoredLines` reads them. The one trace
 * reader: `forge inspect` and `readTrace` both read through it.
 */
export async function* readTraceLines<Envelope = EventEnvelope>(
  file: string,
  parse: EnvelopeParser<Envelope> = anyEnvelope as unknown as EnvelopeParser<Envelope>,
): AsyncGenerator<TraceLine<Envelope>[]> {
  for await (const batch of readStoredLines(file)) yield batch.map((line) => classify(line, parse));
}

export type TraceEntry =
  | { readonly kind: 'event'; readonly line: number; readonly envelope: EventEnvelope }
  /** The last line was cut short, with no newline after it (the run's process died mid-write, or the run is still going). */
  | { readonly kind: 'torn'; readonly line: number; readonly message: string };

/**
 * Streams a run's trace strictly. A last line cut short (no newline after it, as a write cut
 * short by a crash leaves it) is reported as a `torn` entry; any damaged line that ends with a
 * newline — blank, not JSON, not an envelope, too long — throws `CorruptFileError` naming the file
 * and line, the last line included: it was written whole. A line of a newer schema throws
 * `UnsupportedSchemaError`.
 */
export async function* readTrace(home: string, runId: string): AsyncGenerator<TraceEntry> {
  const file = traceFile(home, runId);
  for await (const batch of readTraceLines(file))
    for (const entry of batch) {
      if (entry.kind === 'event') yield entry;
      else if (entry.kind === 'newer_schema')
        throw new UnsupportedSchemaError({ file, version: entry.version, supported: [EVENT_SCHEMA_VERSION] });
      else if (entry.terminated) throw new CorruptFileError({ file, line: entry.line, problem: entry.problem });
      else
        yield {
          kind: 'torn',
          line: entry.line,
          message: `Ignored an incomplete last line ${entry.line} of ${file} (${entry.problem}, and no newline after it).`,
        };
    }
}
