/* `@forge/tools/testing`: test set-up shared by the packages that run real commands. */
export { BUBBLEWRAP_PATH, ensureBubblewrap, ensureDebianProgram } from './debian-program.js';
export { hostPidOf } from './namespace-pids.js';
