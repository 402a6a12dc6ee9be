import type { Message } from '@forge/core';
import type { Redactor } from '@forge/core/redaction';
import { z } from 'zod';
import { CorruptFileError, UnsupportedSchemaError } from './errors.js';
import { redactMessage } from './redact-message.js';
import { SUPPORTED_SESSION_SCHEMAS } from './records.js';
import type { SessionTranscript } from './session-state.js';

/*
 * Schema v1, as the original Forge wrote it: the whole session in one JSON file,
 * `sessions/<id>.json`, rewritten on every change. Messages are plain role/text pairs.
 */

export const v1MessageSchema = z.object({ role: z.enum(['user', 'assistant']), content: z.string() });

export const v1SessionSchema = z.object({
  version: z.literal(1),
  id: z.string().min(1),
  /** ISO-8601. */
  createdAt: z.string().min(1),
  /** ISO-8601. */
  updatedAt: z.string().min(1),
  messages: z.array(v1MessageSchema),
});

export type V1Session = z.infer<typeof v1SessionSchema>;

/** File name of a v1 session, relative to the sessions directory. */
export function v1FileName(id: string): string {
  return `${id}.json`;
}

/** Name the v1 file is kept under once migrated. */
export function v1BackupFileName(id: string): string {
  return `${id}.v1.bak`;
}

/** Parses and validates a v1 session file; the id inside must match the file name. */
export function parseV1Session(
  content: string,
  options: { readonly file: string; readonly sessionId: string },
): V1Session {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (error) {
    throw new CorruptFileError({ file: options.file, problem: 'the v1 session file is not valid JSON', cause: error });
  }
  const version = typeof value === 'object' && value !== null ? (value as { version?: unknown }).version : undefined;
  if (typeof version === 'number' && version !== 1) {
    throw new UnsupportedSchemaError({ file: options.file, version, supported: SUPPORTED_SESSION_SCHEMAS });
  }
  const parsed = v1SessionSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CorruptFileError({
      file: options.file,
      problem: `not a valid v1 session: ${issue === undefined ? 'unknown problem' : `${issue.path.join('.')}: ${issue.message}`}`,
    });
  }
  if (parsed.data.id !== options.sessionId) {
    throw new CorruptFileError({
      file: options.file,
      problem: `the file says it is session ${JSON.stringify(parsed.data.id)}`,
    });
  }
  return parsed.data;
}

/** A v1 message as a core message: user text stays a string, assistant text becomes one text part. */
export function messageFromV1(message: z.infer<typeof v1MessageSchema>): Message {
  return message.role === 'user'
    ? { role: 'user', content: message.content }
    : { role: 'assistant', content: [{ type: 'text', text: message.content }] };
}

/** A v1 session read as it is, without migrating it (readers never write). */
export function transcriptFromV1(session: V1Session, redactor: Redactor): SessionTranscript {
  return {
    id: session.id,
    schemaVersion: 1,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    workspaceRoot: null,
    messages: session.messages.map((message) => redactMessage(messageFromV1(message), redactor)),
    runs: [],
    checkpoint: undefined,
    migratedFrom: undefined,
    warnings: [],
  };
}
