import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ForgeError } from '@forge/core';

/** Which confinement rule a path broke. */
export type WorkspacePathRule =
  | 'empty'
  | 'absolute'
  | 'outside'
  | 'symlink-outside'
  | 'dangling-symlink'
  | 'invalid-character';

/**
 * A path given by the user or the model that the workspace refuses. The message names the path,
 * the rule and what to do instead; tools pass it to the model as error text.
 */
export class WorkspacePathError extends ForgeError {
  static override readonly errorCode = 'workspace_path';
  readonly requestedPath: string;
  readonly rule: WorkspacePathRule;

  constructor(options: { requestedPath: string; rule: WorkspacePathRule; message: string }) {
    super({ code: WorkspacePathError.errorCode, message: options.message, isRetryable: false });
    this.name = 'WorkspacePathError';
    this.requestedPath = options.requestedPath;
    this.rule = options.rule;
  }
}

/** A path confirmed to lie inside the workspace. */
export interface WorkspacePath {
  /**
   * Absolute path with every existing symlink resolved. Operate on this one: it is the path the
   * confinement check approved. Components that do not exist yet are appended as given.
   */
  readonly absolute: string;
  /** The same location relative to the workspace's real root, with `/` separators; `.` for the root. */
  readonly relative: string;
  /** Whether something exists at the path (false for a file about to be created). */
  readonly exists: boolean;
}

/**
 * Resolves `requested` (relative to the workspace root) and refuses it when it is absolute, climbs
 * out with `..`, or reaches outside the root's real path through a symlink — whether the symlink is
 * the file itself or a directory on the way. For a path that does not exist yet, the nearest
 * existing parent decides. A dangling symlink is refused, since writing through it could create a
 * file wherever it points.
 *
 * The check and the later file operation are separate system calls. Reads check the file they
 * opened again (`loadFile`), but a write, a listing or a command's working directory can still be
 * redirected by a process that swaps a directory for a symlink in between: this guards against
 * mistakes and against the model, not against a hostile local user.
 */
export async function resolveWorkspacePath(root: string, requested: string): Promise<WorkspacePath> {
  const realRoot = await realpath(path.resolve(root));
  if (requested.includes('\0')) {
    throw refusal(
      requested,
      'invalid-character',
      `Path ${JSON.stringify(requested)} contains a NUL character; use a plain relative path inside the workspace ${realRoot}.`,
    );
  }
  if (requested.trim().length === 0) {
    throw refusal(
      requested,
      'empty',
      `The path is empty; use "." for the workspace root ${realRoot} or a path inside it.`,
    );
  }
  if (path.isAbsolute(requested)) {
    throw refusal(
      requested,
      'absolute',
      `Path "${requested}" is absolute; use a path relative to the workspace ${realRoot}.`,
    );
  }
  const lexical = path.resolve(realRoot, requested);
  if (!isInside(realRoot, lexical)) {
    throw refusal(
      requested,
      'outside',
      `Path "${requested}" is outside the workspace ${realRoot}; use a path inside it.`,
    );
  }

  const { real, exists } = await resolveExistingPart(lexical, requested, realRoot);
  if (!isInside(realRoot, real)) {
    throw refusal(
      requested,
      'symlink-outside',
      `Path "${requested}" goes through a symbolic link to ${real}, which is outside the workspace ${realRoot}; use a path whose target is inside it.`,
    );
  }
  return { absolute: real, relative: toRelative(realRoot, real), exists };
}

/**
 * Refuses a file opened after its path was approved when the open file (`openedPath`, null when it
 * cannot be told) is not inside `realRoot`: something on the path was swapped for a link in between.
 */
export function assertOpenedInside(realRoot: string, requested: string, openedPath: string | null): void {
  if (openedPath !== null && isInside(realRoot, openedPath)) return;
  throw refusal(
    requested,
    'symlink-outside',
    `Path "${requested}" changed while it was being opened (a directory or file on it was replaced by a symbolic link${openedPath === null ? '' : ` to ${openedPath}`}), so it was not read; it must stay inside the workspace ${realRoot}.`,
  );
}

/** The real path of the workspace root; every `WorkspacePath.relative` is relative to it. */
export async function realWorkspaceRoot(root: string): Promise<string> {
  return realpath(path.resolve(root));
}

/** `absolute` relative to `root` with `/` separators, `.` for the root itself. */
export function toRelative(root: string, absolute: string): string {
  const relative = path.relative(root, absolute);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}

/** Whether `candidate` is `root` or lies below it (both absolute, compared as given). */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

async function resolveExistingPart(
  lexical: string,
  requested: string,
  realRoot: string,
): Promise<{ real: string; exists: boolean }> {
  const missing: string[] = [];
  let current = lexical;
  for (;;) {
    try {
      const real = await realpath(current);
      return {
        real: missing.length === 0 ? real : path.join(real, ...missing.reverse()),
        exists: missing.length === 0,
      };
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    if (await existsAsLink(current)) {
      throw refusal(
        requested,
        'dangling-symlink',
        `Path "${requested}" goes through the symbolic link ${toRelative(realRoot, current)}, whose target does not exist; use a path without it.`,
      );
    }
    missing.push(path.basename(current));
    // The root's realpath succeeded, so the walk up ends there at the latest.
    current = path.dirname(current);
  }
}

async function existsAsLink(candidate: string): Promise<boolean> {
  try {
    return (await lstat(candidate)).isSymbolicLink();
  } catch {
    return false;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function refusal(requestedPath: string, rule: WorkspacePathRule, message: string): WorkspacePathError {
  return new WorkspacePathError({ requestedPath, rule, message });
}
