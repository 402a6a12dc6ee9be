/** How one file was touched by an `apply_patch` patch. */
export interface PatchedFile {
  readonly path: string;
  readonly change: 'add' | 'update' | 'delete' | 'move-from' | 'move-to';
}

const headers: readonly [string, PatchedFile['change']][] = [
  ['*** Add File: ', 'add'],
  ['*** Update File: ', 'update'],
  ['*** Delete File: ', 'delete'],
  ['*** Move to: ', 'move-to'],
];

/**
 * The files an `apply_patch` patch names, in order. A `Move to` turns the preceding update into
 * a move: the old path is recorded as `move-from`.
 */
export function filesInPatch(patch: string): PatchedFile[] {
  const files: PatchedFile[] = [];
  for (const rawLine of patch.split('\n')) {
    const line = rawLine.replace(/\r$/, '');
    for (const [header, change] of headers) {
      if (!line.startsWith(header)) continue;
      const path = line.slice(header.length).trim();
      if (path.length === 0) break;
      if (change === 'move-to') {
        const previous = files.at(-1);
        if (previous?.change === 'update') files[files.length - 1] = { path: previous.path, change: 'move-from' };
      }
      files.push({ path, change });
      break;
    }
  }
  return files;
}
