import { z } from 'zod';
import type { JsonObject } from '../json.js';
import type { Message } from '../messages.js';

/*
 * Reading what the host wrote into tool-result `metadata` (@forge/tools conventions). Only these
 * fields feed the host-owned checkpoint state; the text a model or tool printed never does.
 */

/** One message of the canonical transcript and the run that added it; its index is its `seq`. */
export interface CheckpointTranscriptEntry {
  readonly message: Message;
  readonly runId?: string;
}

/**
 * Pairs each message with the run that added it, given where each run's messages start (as the
 * session store records runs). Messages before the first run get no run id.
 */
export function withRunIds(
  messages: readonly Message[],
  runs: readonly { readonly runId: string; readonly firstMessageIndex: number }[],
): CheckpointTranscriptEntry[] {
  const starts = [...runs].sort((left, right) => left.firstMessageIndex - right.firstMessageIndex);
  let next = 0;
  let current: string | undefined;
  return messages.map((message, index) => {
    while (next < starts.length && (starts[next] as { firstMessageIndex: number }).firstMessageIndex <= index) {
      current = (starts[next] as { runId: string }).runId;
      next += 1;
    }
    return current === undefined ? { message } : { message, runId: current };
  });
}

export const READ_FILE_TOOL = 'read_file';
export const EDIT_FILE_TOOL = 'edit_file';
export const RUN_COMMAND_TOOL = 'run_command';
export const CHECKPOINT_NOTE_TOOL = 'checkpoint_note';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

const readFileMetadataSchema = z.object({ path: z.string().min(1), sha256 });
const editFileMetadataSchema = z.object({
  path: z.string().min(1),
  sha256Before: sha256.nullable(),
  sha256After: sha256,
});
const runCommandMetadataSchema = z.object({
  argv: z.array(z.string()).min(1),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable().optional(),
  timedOut: z.boolean().optional(),
  durationMs: z.number().optional(),
});

export type ReadFileMetadata = z.infer<typeof readFileMetadataSchema>;
export type EditFileMetadata = z.infer<typeof editFileMetadataSchema>;
export type RunCommandMetadata = z.infer<typeof runCommandMetadataSchema>;

function parse<T>(schema: z.ZodType<T>, metadata: JsonObject | undefined): T | null {
  if (metadata === undefined) return null;
  const result = schema.safeParse(metadata);
  return result.success ? result.data : null;
}

export function readFileMetadata(metadata: JsonObject | undefined): ReadFileMetadata | null {
  return parse(readFileMetadataSchema, metadata);
}

export function editFileMetadata(metadata: JsonObject | undefined): EditFileMetadata | null {
  return parse(editFileMetadataSchema, metadata);
}

export function runCommandMetadata(metadata: JsonObject | undefined): RunCommandMetadata | null {
  return parse(runCommandMetadataSchema, metadata);
}

/** The `path` a file-based tool (read, edit, list, search) reported, if any. */
export function metadataPath(metadata: JsonObject | undefined): string | null {
  const path = metadata?.['path'];
  return typeof path === 'string' && path.length > 0 ? path : null;
}

const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `argv` as one shell-like line; arguments with spaces or quotes are single-quoted. */
export function formatCommand(argv: readonly string[]): string {
  return argv.map((arg) => (SHELL_SAFE.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** Artifact uri of a workspace file. */
export function fileUri(path: string): string {
  return `file:${path}`;
}

/** Artifact uri of a command line. */
export function commandUri(command: string): string {
  return `command:${command}`;
}

/** Artifact uri of one result of a tool that is neither a file nor a command tool. */
export function toolOutputUri(toolName: string, toolCallId: string): string {
  return `tool-output:${toolName}:${toolCallId}`;
}

const URI_SCHEMES = ['file:', 'command:', 'tool-output:'] as const;

/** A uri as given, or `file:<path>` when it names no known scheme (a bare path). */
export function normalizeArtifactUri(uri: string): string {
  return URI_SCHEMES.some((scheme) => uri.startsWith(scheme)) ? uri : fileUri(uri);
}
