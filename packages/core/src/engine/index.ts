/* `@forge/core/engine`: what an engine other than `runAgent` (the Codex engine) uses to run a turn the way `runAgent` does. */
export { endRun } from '../run/run-end.js';
