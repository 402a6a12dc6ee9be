import { hashWorkspaceFile } from '@forge/tools';
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { CodexImportState, FileArtifact } from './import-state.js';

/**
 * Fills in the hash of every touched file from the workspace as it is now (with the tools'
 * `hashWorkspaceFile`, so a file reads as it would for `read_file`): `current` with its SHA-256
 * when the file exists inside `workspaceRoot`, `missing` when it does not, `unknown` when the path
 * lies outside the root or cannot be read. The rollout's own claims are never used.
 */
export async function hashArtifacts(state: CodexImportState, workspaceRoot: string | null): Promise<CodexImportState> {
  if (workspaceRoot === null || !(await isDirectory(workspaceRoot))) {
    return { ...state, workspace: { root: workspaceRoot, hashed: false } };
  }
  const artifacts: FileArtifact[] = [];
  for (const artifact of state.artifacts) artifacts.push(await hashOne(artifact, workspaceRoot));
  return { ...state, artifacts, workspace: { root: workspaceRoot, hashed: true } };
}

async function hashOne(artifact: FileArtifact, root: string): Promise<FileArtifact> {
  const path = isAbsolute(artifact.uri) ? artifact.uri : resolve(root, artifact.uri);
  const inside = relative(root, path);
  if (inside.length === 0 || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    return { ...artifact, hash: null, hashStatus: 'unknown' };
  }
  const hashed = await hashWorkspaceFile(root, inside);
  return { ...artifact, hash: hashed.status === 'current' ? hashed.hash : null, hashStatus: hashed.status };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
