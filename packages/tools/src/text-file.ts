import { readFile, stat } from 'node:fs/promises';

/** Files larger than this are never loaded whole by read_file or edit_file. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

export type LoadedFile =
  | { readonly kind: 'ok'; readonly bytes: Buffer; readonly mode: number }
  | { readonly kind: 'not-a-file' }
  | { readonly kind: 'too-large'; readonly size: number };

/** Loads a regular file whole, refusing directories, devices and anything over `MAX_FILE_BYTES`. */
export async function loadFile(absolute: string): Promise<LoadedFile> {
  const info = await stat(absolute);
  if (!info.isFile()) return { kind: 'not-a-file' };
  if (info.size > MAX_FILE_BYTES) return { kind: 'too-large', size: info.size };
  return { kind: 'ok', bytes: await readFile(absolute), mode: info.mode };
}

/** A file holding a NUL byte is treated as binary, the same heuristic git and grep use. */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.includes(0);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
