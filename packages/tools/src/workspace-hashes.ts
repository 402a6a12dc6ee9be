import { readFile } from 'node:fs/promises';
import { sha256Hex } from '@forge/core';
import { resolveWorkspacePath } from './workspace.js';

/** Current hashes of artifact uris; `null` when the artifact is gone or cannot be read. */
export type WorkspaceHashSource = (uris: readonly string[]) => Promise<Map<string, string | null>>;

const FILE_SCHEME = 'file:';

/**
 * Current hashes of workspace files named by `file:` artifact uris, read from disk inside the
 * workspace's confinement (the bytes `read_file` hashes). A file that is gone, unreadable or
 * outside the workspace maps to `null`: its facts show SUSPECT instead of staying VALID on an old
 * observation. Other uris are left to what the session observed.
 */
export function workspaceArtifactHashes(root: string): WorkspaceHashSource {
  return async (uris) => {
    const hashes = new Map<string, string | null>();
    for (const uri of uris) {
      if (!uri.startsWith(FILE_SCHEME)) continue;
      try {
        const target = await resolveWorkspacePath(root, uri.slice(FILE_SCHEME.length));
        hashes.set(uri, target.exists ? sha256Hex(await readFile(target.absolute)) : null);
      } catch {
        hashes.set(uri, null);
      }
    }
    return hashes;
  };
}
