/* `@forge/core/observers`: untrusted subscribers (plugins) that watch a run through redacted, frozen copies of its events. */
export { createObserverHub, type Observer } from './observer-hub.js';
