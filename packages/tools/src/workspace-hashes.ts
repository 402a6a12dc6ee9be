import { sha256Hex } from '@forge/core';
import { loadFile } from './text-file.js';
import { resolveWorkspacePath } from './workspace.js';

/** Current hashes of artifact uris; `null` when the artifact is gone or cannot be read. */
export type WorkspaceHashSource = (uris: readonly string[]) => Promise<Map<string, string | null>>;

const FILE_SCHEME = 'file:';

/** A workspace file's SHA-256 now, or why there is none: it is gone, or it cannot be read (outside the workspace, not a regular file, hard-linked, too large). */
export type WorkspaceFileHash = { readonly status: 'current'; readonly hash: string } | { readonly status: 'missing' } | { readonly status: 'unknown' };

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
 * observation. Other uris are left to what the session observed.
 */
export function workspaceArtifactHashes(root: string): WorkspaceHashSource {
  return async (uris) => {
    const hashes = new Map<string, string | null>();
    for (const uri of uris) {
      if (!uri.startsWith(FILE_SCHEME)) continue;
      const hashed = await hashWorkspaceFile(root, uri.slice(FILE_SCHEME.length));
      hashes.set(uri, hashed.status === 'current' ? hashed.hash : null);
    }
    return hashes;
  };
}
