import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { InvalidInputError, type Message } from '@forge/core';
import type { CodexImportState } from './import-state.js';
import { RolloutReducer } from './reduce.js';
import { readRolloutLines } from './rollout-lines.js';
import { defaultImportViewCaps, renderImportView, type ImportViewCaps } from './view.js';
import { hashArtifacts } from './workspace-hashes.js';

export interface ImportCodexRolloutOptions {
  /**
   * The workspace whose files are hashed; defaults to the `cwd` the rollout records. Files that
   * no longer exist there, or when it does not exist, get an unknown hash.
   */
  readonly workspaceRoot?: string;
  /**
   * Receives each transcript message as soon as it is complete. When given (or `onMessages`),
   * messages are not kept: memory stays bounded however long the rollout is.
   */
  readonly onMessage?: (message: Message) => void;
  /**
   * Receives the transcript in batches, in order, and is awaited before more of the file is read
   * (for writing to a session as the file streams). Messages are then not kept.
   */
  readonly onMessages?: (
    messages: readonly Message[],
    context: { readonly recordedCwd: string | null },
  ) => Promise<void>;
  /** Longest line read, in bytes (default `MAX_ROLLOUT_LINE_BYTES`); longer lines are skipped and counted. */
  readonly maxLineBytes?: number;
  readonly viewCaps?: ImportViewCaps;
}

export interface CodexRolloutImport {
  /** The Forge transcript (empty when `onMessage` or `onMessages` received it instead). */
  readonly messages: readonly Message[];
  readonly state: CodexImportState;
  /** `renderImportView(state, caps)`: the Codex facts of the import as text. */
  readonly view: string;
}

/** Messages handed to `onMessages` at once, at most; a batch also ends at this many bytes of text. */
const BATCH_MESSAGES = 2048;
const BATCH_CHARS = 16 * 1024 * 1024;

/**
 * Imports a Codex rollout file: streams it line by line (never the whole file in memory, never a
 * line over the limit), reduces it to a Forge transcript plus a deterministic import state,
 * hashes the touched files from the workspace, and renders the state's view. Importing the same
 * file against the same workspace twice gives byte-equal state JSON and view.
 */
export async function importCodexRollout(
  path: string,
  options: ImportCodexRolloutOptions = {},
): Promise<CodexRolloutImport> {
  const messages: Message[] = [];
  let batch: Message[] = [];
  let batchChars = 0;
  const collect =
    options.onMessages !== undefined
      ? (message: Message) => {
          batch.push(message);
          batchChars += messageChars(message);
        }
      : (options.onMessage ?? ((message: Message) => messages.push(message)));
  const flush = async (): Promise<void> => {
    if (options.onMessages === undefined || batch.length === 0) return;
    const ready = batch;
    batch = [];
    batchChars = 0;
    await options.onMessages(ready, { recordedCwd: reducer.recordedCwd });
  };
  const reducer = new RolloutReducer(collect);
  const fileHash = createHash('sha256');
  let bytes = 0;
  try {
    const size = await stat(path);
    bytes = size.size;
  } catch (error) {
    throw new InvalidInputError({
      message: `Cannot read the Codex rollout ${path}: ${(error as Error).message}. Check the path.`,
      cause: error,
    });
  }
  try {
    for await (const line of readRolloutLines(path, {
      hash: fileHash,
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    })) {
      if (line.kind === 'oversized') reducer.skipOversizedLine(line.seq);
      else reducer.applyLine(line.text, line.seq, line.last && !line.terminated);
      if (batch.length >= BATCH_MESSAGES || batchChars >= BATCH_CHARS) await flush();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== undefined && (error as NodeJS.ErrnoException).syscall !== undefined) {
      throw new InvalidInputError({
        message: `Cannot read the Codex rollout ${path}: ${(error as Error).message}. Check the path.`,
        cause: error,
      });
    }
    throw error;
  }

  const reduced = reducer.finish({ bytes, sha256: fileHash.digest('hex') });
  await flush();
  const state = await hashArtifacts(reduced, options.workspaceRoot ?? reduced.source.cwd);
  return { messages, state, view: renderImportView(state, options.viewCaps ?? defaultImportViewCaps) };
}

/** Characters of text a message carries, to bound a batch by size as well as by count. */
function messageChars(message: Message): number {
  if (message.role === 'user') return message.content.length;
  let chars = 0;
  for (const part of message.content) {
    if (part.type === 'text' || part.type === 'reasoning') chars += part.text.length;
    else if (part.type === 'tool-result') chars += part.output.type === 'json' ? 1024 : part.output.value.length;
    else chars += 256;
  }
  return chars;
}

/** The state as canonical JSON text (two-space indent, trailing newline), as stored in a checkpoint. */
export function serializeImportState(state: CodexImportState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}
