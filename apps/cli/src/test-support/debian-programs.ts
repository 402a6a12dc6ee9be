/* The Debian programs bundle and reliability tests need, installed with apt-get when missing (for packages that reach `@forge/tools` only through the CLI). */
export { BUBBLEWRAP_PATH, ensureBubblewrap, ensureDebianProgram } from '@forge/tools/testing';
