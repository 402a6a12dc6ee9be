import type { JsonObject, Message } from '@forge/core';

/**
 * What this session has seen of each file: workspace-relative path → SHA-256 of the file as of the
 * last full `read_file` or successful `edit_file`. `edit_file` refuses to change a file whose
 * current hash differs, so the model never edits a file it has not seen in its current state.
 * It records what was read, not what is allowed: it grants no approval.
 */
export class ReadLedger {
  private readonly hashes = new Map<string, string>();
  private shown = new Map<string, WorkingSetSight>();

  /** Rebuilds the ledger of a resumed session from the host-written metadata of its tool results. */
  static fromTranscript(messages: readonly Message[]): ReadLedger {
    const ledger = new ReadLedger();
    for (const message of messages) {
      if (message.role !== 'tool') continue;
      for (const part of message.content) {
        if (part.output.type === 'error-text' || part.metadata === undefined) continue;
        const seen = seenHash(part.toolName, part.metadata);
        if (seen !== undefined) ledger.record(seen.path, seen.sha256);
      }
    }
    return ledger;
  }

  /** Notes that the session has seen `path` (workspace-relative) with content hashing to `sha256`. */
  record(path: string, sha256: string): void {
    this.hashes.set(path, sha256);
  }

  /** The hash recorded for `path`, or undefined when the session has not fully read it. */
  hashOf(path: string): string | undefined {
    return this.hashes.get(path);
  }

  /** Drops what the session saw of `path`, so the next edit needs a fresh read; true when there was an entry. */
  forget(path: string): boolean {
    return this.hashes.delete(path);
  }

  /**
   * Notes what the checkpoint's working set showed in the view just sent to the model, replacing
   * what the previous view showed: each file with the hash of the content shown and, when only
   * part was shown, which lines. `edit_file` accepts such a file as seen while its hash still
   * matches (see {@link seenInWorkingSet}). The ledger of a new process gets it again from the
   * first view that process sends, so a restart needs no re-read.
   */
  acceptWorkingSet(files: readonly WorkingSetSight[]): void {
    this.shown = new Map(files.map((file) => [file.path, file]));
  }

  /** What the latest sent working set showed of `path`, or undefined when it showed none of it. */
  seenInWorkingSet(path: string): WorkingSetSight | undefined {
    return this.shown.get(path);
  }

  /** How many paths are recorded. */
  get size(): number {
    return this.hashes.size;
  }

  /** Every recorded path and hash, sorted by path. */
  entries(): [path: string, sha256: string][] {
    return [...this.hashes.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  }
}

/** A file a checkpoint's working set showed: its hash, and the lines shown (`null`: all of them). */
export interface WorkingSetSight {
  readonly path: string;
  readonly sha256: string;
  readonly region: { readonly startLine: number; readonly endLine: number } | null;
}

function seenHash(toolName: string, metadata: JsonObject): { path: string; sha256: string } | undefined {
  const path = metadata['path'];
  if (typeof path !== 'string') return undefined;
  if (toolName === 'read_file' && metadata['complete'] === true && typeof metadata['sha256'] === 'string') {
    return { path, sha256: metadata['sha256'] };
  }
  if (toolName === 'edit_file' && typeof metadata['sha256After'] === 'string') {
    return { path, sha256: metadata['sha256After'] };
  }
  return undefined;
}
