import { crc32 } from 'node:zlib';
import { SESSION_SCHEMA_VERSION, sessionRecordSchema, type SessionRecord } from './records.js';

/*
 * A line is the record's JSON with `,"crc":"xxxxxxxx"}` in place of its closing brace. The CRC-32
 * covers every byte before that suffix, so a reader checks the exact bytes that were written,
 * without re-serialising, and a torn or bit-flipped line never passes for a complete one.
 */

export const CRC_SUFFIX_LENGTH = ',"crc":"00000000"}'.length;
const CRC_SUFFIX = /^,"crc":"([0-9a-f]{8})"\}$/;

/** The checksum a line's last `CRC_SUFFIX_LENGTH` bytes state, or undefined when they are not a checksum suffix. */
function checksumOfSuffix(suffix: Uint8Array): number | undefined {
  const match = CRC_SUFFIX.exec(Buffer.from(suffix.buffer, suffix.byteOffset, suffix.length).toString('latin1'));
  return match === null ? undefined : Number.parseInt(match[1] as string, 16);
}

/**
 * Why a complete line of `lineBytes` bytes (newline excluded) is not what a write left, from its
 * last `CRC_SUFFIX_LENGTH` bytes (`suffix`) and the CRC-32 of the bytes before them; undefined
 * when its checksum holds. The one checksum check, for `decodeLine` and for streaming readers
 * that never hold a whole line.
 */
export function checksumProblem(lineBytes: number, suffix: Uint8Array, crcBeforeSuffix: number): string | undefined {
  if (lineBytes <= CRC_SUFFIX_LENGTH) return 'the line is too short to be a record';
  const stored = checksumOfSuffix(suffix);
  if (stored === undefined) return 'the line does not end with a checksum';
  if (stored !== crcBeforeSuffix) return 'the checksum does not match the line';
  return undefined;
}

/** Encodes one record as a line, newline included. */
export function encodeRecord(record: SessionRecord): string {
  const body = JSON.stringify(record);
  const prefix = body.slice(0, -1);
  return `${prefix},"crc":"${crc32(prefix).toString(16).padStart(8, '0')}"}\n`;
}

export type DecodedLine =
  /** The line is intact and holds a valid record. */
  | { readonly kind: 'record'; readonly record: SessionRecord }
  /** The bytes are not what a complete write leaves: cut short, or damaged. */
  | { readonly kind: 'damaged'; readonly problem: string }
  /** The line is intact (its checksum matches) but its content is not a valid v2 record. */
  | { readonly kind: 'invalid'; readonly problem: string; readonly version?: unknown };

/** Decodes one line (without its newline). */
export function decodeLine(line: Uint8Array): DecodedLine {
  const prefix = line.subarray(0, Math.max(0, line.length - CRC_SUFFIX_LENGTH));
  const problem = checksumProblem(line.length, line.subarray(prefix.length), crc32(prefix));
  if (problem !== undefined) return { kind: 'damaged', problem };

  let value: unknown;
  try {
    value = JSON.parse(`${Buffer.from(prefix.buffer, prefix.byteOffset, prefix.length).toString('utf8')}}`);
  } catch {
    return { kind: 'invalid', problem: 'the line is not valid JSON although its checksum matches' };
  }
  const version = typeof value === 'object' && value !== null ? (value as { v?: unknown }).v : undefined;
  if (version !== SESSION_SCHEMA_VERSION)
    return { kind: 'invalid', problem: `unknown record version ${JSON.stringify(version)}`, version };
  const parsed = sessionRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue === undefined ? '' : issue.path.join('.');
    return {
      kind: 'invalid',
      problem: `the record is not valid: ${path === '' ? '' : `${path}: `}${issue?.message ?? 'unknown problem'}`,
    };
  }
  return { kind: 'record', record: parsed.data };
}
