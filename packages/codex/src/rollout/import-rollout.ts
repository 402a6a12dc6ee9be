import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { InvalidInputError, type Message } from '@forge/core';
import type { CodexImportState } from './import-state.js';
import { RolloutReducer } from './reduce.js';
import { defaultImportViewCaps, renderImportView, type ImportViewCaps } from './view.js';
import { hashArtifacts } from './workspace-hashes.js';

export interface ImportCodexRolloutOptions {
  /**
   * The workspace whose files are hashed; defaults to the `cwd` the rollout records. Files that
   * no longer exist there, or when it does not exist, get an unknown hash.
   */
  readonly workspaceRoot?: string;
  /**
   * Receives each transcript message as soon as it is complete. When given, messages are not
   * kept: memory stays bounded however long the rollout is.
   */
  readonly onMessage?: (message: Message) => void;
  readonly viewCaps?: ImportViewCaps;
}

export interface CodexRolloutImport {
  /** The Forge transcript (empty when `onMessage` received it instead). */
  readonly messages: readonly Message[];
  readonly state: CodexImportState;
  /** `renderImportView(state, caps)`: the checkpoint text for the model. */
  readonly view: string;
}

/**
 * Imports a Codex rollout file: streams it line by line (never the whole file in memory), reduces
 * it to a Forge transcript plus a deterministic import state, hashes the touched files from the
 * workspace, and renders the state's view. Importing the same file against the same workspace
 * twice gives byte-equal state JSON and view.
 */
export async function importCodexRollout(path: string, options: ImportCodexRolloutOptions = {}): Promise<CodexRolloutImport> {
  const messages: Message[] = [];
  const reducer = new RolloutReducer(options.onMessage ?? ((message) => messages.push(message)));
  const fileHash = createHash('sha256');
  let bytes = 0;
  let lastByte: number | undefined;

  const stream = createReadStream(path);
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  try {
    await opened;
  } catch (error) {
    throw new InvalidInputError({ message: `Cannot read the Codex rollout ${path}: ${(error as Error).message}. Check the path.`, cause: error });
  }
  stream.on('data', (chunk) => {
    const buffer = chunk as Buffer;
    fileHash.update(buffer);
    bytes += buffer.length;
    if (buffer.length > 0) lastByte = buffer[buffer.length - 1];
  });

  let pending: string | undefined;
  let seq = 0;
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (pending !== undefined) reducer.applyLine(pending, seq);
    pending = line;
    seq += 1;
  }
  if (pending !== undefined) reducer.applyLine(pending, seq, lastByte !== 0x0a);

  const reduced = reducer.finish({ bytes, sha256: fileHash.digest('hex') });
  const state = await hashArtifacts(reduced, options.workspaceRoot ?? reduced.source.cwd);
  return { messages, state, view: renderImportView(state, options.viewCaps ?? defaultImportViewCaps) };
}

/** The state as canonical JSON text (two-space indent, trailing newline), as stored in a checkpoint. */
export function serializeImportState(state: CodexImportState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}
