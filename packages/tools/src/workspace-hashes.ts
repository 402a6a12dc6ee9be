import { sha256Hex } from '@forge/core';
import type { WorkingSetReader, WorkingSetShownFile } from '@forge/core/checkpoint';
import type { ReadLedger } from './read-ledger.js';
import { loadFile } from './text-file.js';
import { readWorkingSetFiles } from './working-set-files.js';
import { resolveWorkspacePath } from './workspace.js';

/**
 * Current hashes of artifact uris (`null` when the artifact is gone or cannot be read), plus what
 * a checkpoint's working set needs of the workspace: the current text of the files in hand, and
 * where to report what a view sent to the model showed of them.
 */
export interface WorkspaceHashSource {
  (uris: readonly string[]): Promise<Map<string, string | null>>;
  /** Reads the files in hand from disk, confined to the workspace. */
  readonly readFiles: WorkingSetReader;
  /** The working set a view sent to the model showed; the read ledger accepts those files for `edit_file`. */
  readonly workingSetSent: (shown: readonly WorkingSetShownFile[]) => void;
}

const FILE_SCHEME = 'file:';

/** A workspace file's SHA-256 now, or why there is none: it is gone, or it cannot be read (outside the workspace, not a regular file, hard-linked, too large). */
export type WorkspaceFileHash =
  | { readonly status: 'current'; readonly hash: string }
  | { readonly status: 'missing' }
  | { readonly status: 'unknown' };

/**
 * The hash of the workspace file at `requested` (relative to `root`), read from disk inside the
 * workspace's confinement, the way `read_file` loads it. The one workspace hasher: checkpoints
 * re-check their file facts with it, and the Codex importer hashes the files a rollout touched.
 */
export async function hashWorkspaceFile(root: string, requested: string): Promise<WorkspaceFileHash> {
  try {
    const target = await resolveWorkspacePath(root, requested);
    if (!target.exists) return { status: 'missing' };
    const loaded = await loadFile(target.absolute, root, requested);
    if (loaded.kind === 'ok') return { status: 'current', hash: sha256Hex(loaded.bytes) };
    return loaded.kind === 'missing' ? { status: 'missing' } : { status: 'unknown' };
  } catch {
    return { status: 'unknown' };
  }
}

/**
 * Current hashes of workspace files named by `file:` artifact uris, read from disk inside the
 * workspace's confinement, the way `read_file` loads them. A file that is gone, unreadable, not a
 * regular file, hard-linked, too large or outside the workspace maps to `null`: its facts show SUSPECT instead of staying VALID on an old
 * observation. Other uris are left to what the session observed. With `ledger`, the files a sent
 * view's working set showed become editable without another read while their hash matches.
 */
export function workspaceArtifactHashes(
  root: string,
  options: { readonly ledger?: ReadLedger } = {},
): WorkspaceHashSource {
  const hashes = async (uris: readonly string[]) => {
    const found = new Map<string, string | null>();
    for (const uri of uris) {
      if (!uri.startsWith(FILE_SCHEME)) continue;
      const hashed = await hashWorkspaceFile(root, uri.slice(FILE_SCHEME.length));
      found.set(uri, hashed.status === 'current' ? hashed.hash : null);
    }
    return found;
  };
  return Object.assign(hashes, {
    readFiles: (paths: readonly string[]) => readWorkingSetFiles(root, paths),
    workingSetSent: (shown: readonly WorkingSetShownFile[]) => options.ledger?.acceptWorkingSet(shown),
  });
}
