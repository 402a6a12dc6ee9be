/** How to install bubblewrap, for notices and errors. */
export const BUBBLEWRAP_INSTALL_HINT = 'apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora)';

export interface BubblewrapConfinement {
  /** Directories the command may write (the workspace in `workspace-write`, and its temporary directory). */
  readonly writable: readonly string[];
  /** Paths under a writable directory that stay read-only; each must exist (see `protected-paths.ts`). */
  readonly readOnly: readonly string[];
  readonly network: boolean;
  readonly cwd: string;
}

/**
 * The arguments of `bwrap` that run a command confined: the whole file system read-only, a fresh
 * `/dev` and `/proc`, its own PID and IPC namespaces (when the first process ends, the kernel ends
 * every other), no network unless asked, no capabilities even when Forge runs as root (with them,
 * root inside could remount `/` writable), and the sandbox ended with Forge.
 */
export function bubblewrapArguments(confinement: BubblewrapConfinement, argv: readonly string[]): string[] {
  const args = [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/dev/shm',
    '--unshare-pid',
    '--unshare-ipc',
  ];
  if (!confinement.network) args.push('--unshare-net');
  args.push('--cap-drop', 'ALL', '--die-with-parent');
  for (const directory of confinement.writable) args.push('--bind', directory, directory);
  for (const file of confinement.readOnly) args.push('--ro-bind', file, file);
  args.push('--chdir', confinement.cwd, '--', ...argv);
  return args;
}
