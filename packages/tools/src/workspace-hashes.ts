import { sha256Hex } from '@forge/core';
import { loadFile } from './text-file.js';
import { resolveWorkspacePath } from './workspace.js';

/** Current hashes of artifact uris; `null` when the artifact is gone or cannot be read. */
export type WorkspaceHashSource = (uris: readonly string[]) => Promise<Map<string, string | null>>;

const FILE_SCHEME = 'file:';

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
      try {
        const requested = uri.slice(FILE_SCHEME.length);
        const target = await resolveWorkspacePath(root, requested);
        const loaded = target.exists ? await loadFile(target.absolute, root, requested) : undefined;
        hashes.set(uri, loaded?.kind === 'ok' ? sha256Hex(loaded.bytes) : null);
      } catch {
        hashes.set(uri, null);
      }
    }
    return hashes;
  };
}
