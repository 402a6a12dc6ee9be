export { createObserverHub, type Observer, type ObserverHub, type ObserverHubOptions } from './observer-hub.js';
export { toObserverEvent } from './observer-event.js';
