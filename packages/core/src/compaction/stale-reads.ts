import { READ_FILE_TOOL, readFileMetadata, type CheckpointTranscriptEntry } from '../checkpoint/host-metadata.js';
import { observeArtifactHashes, type ArtifactHashes } from '../checkpoint/staleness.js';
import type { Message, ToolResultPart } from '../messages.js';

/** The `file:` artifact a read result is about, and the hash of the content it returned. */
function readOf(part: ToolResultPart): { readonly uri: string; readonly sha256: string } | undefined {
  if (part.toolName !== READ_FILE_TOOL) return undefined;
  const metadata = readFileMetadata(part.metadata);
  return metadata === null ? undefined : { uri: `file:${metadata.path}`, sha256: metadata.sha256 };
}

/** Files the reads in `messages` returned content of, as `file:` artifact uris. */
export function readArtifacts(messages: readonly Message[]): string[] {
  const uris = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      const read = readOf(part);
      if (read !== undefined) uris.add(read.uri);
    }
  }
  return [...uris].sort();
}

function staleForm(
  part: ToolResultPart,
  read: { readonly uri: string; readonly sha256: string },
  now: string | null,
): ToolResultPart {
  const path = read.uri.slice('file:'.length);
  const state = now === null ? 'it can no longer be read' : `it is now sha256 ${now.slice(0, 12)}`;
  const value =
    `[tool output out of date: ${READ_FILE_TOOL} of ${path} returned sha256 ${read.sha256.slice(0, 12)}; the file changed outside this conversation since (${state}), ` +
    'so the old content is not shown. Read the file again before relying on it.]';
  return { ...part, output: { type: 'text', value } };
}

/**
 * History with reads of files that changed outside the conversation shown as out of date. A file
 * changed outside when the workspace's hash now (`currentHashes`) differs from the last hash the
 * transcript observed for it (a read or an edit by the agent); every read of such a file whose
 * content differs from the file now is replaced by a short note saying so, so the model reads it
 * again instead of trusting content that is no longer true. Edits the agent made itself are in
 * the transcript and change nothing here, so the request prefix stays stable turn after turn.
 * Messages keep their place and pairing; unchanged messages are the same objects.
 */
export function markStaleReads(
  entries: readonly CheckpointTranscriptEntry[],
  history: readonly Message[],
  currentHashes: ArtifactHashes,
): { readonly history: readonly Message[]; readonly stale: readonly string[] } {
  const observed = observeArtifactHashes(entries);
  const changed = new Set(
    [...currentHashes].filter(([uri, hash]) => observed.has(uri) && observed.get(uri) !== hash).map(([uri]) => uri),
  );
  if (changed.size === 0) return { history, stale: [] };
  const stale: string[] = [];
  const marked = history.map((message): Message => {
    if (message.role !== 'tool') return message;
    let touched = false;
    const content = message.content.map((part) => {
      const read = readOf(part);
      if (read === undefined || !changed.has(read.uri)) return part;
      const now = currentHashes.get(read.uri) ?? null;
      if (now === read.sha256) return part;
      touched = true;
      stale.push(part.toolCallId);
      return staleForm(part, read, now);
    });
    return touched ? { role: 'tool', content } : message;
  });
  return { history: marked, stale };
}
