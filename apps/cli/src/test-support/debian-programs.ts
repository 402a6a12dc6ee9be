/* Test support from `@forge/tools/testing` for packages that reach it only through the CLI: Debian programs installed with apt-get when missing, and host pids of sandboxed commands. */
export { BUBBLEWRAP_PATH, ensureBubblewrap, ensureDebianProgram, hostPidOf } from '@forge/tools/testing';
