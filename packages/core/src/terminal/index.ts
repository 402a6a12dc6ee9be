/* `@forge/core/terminal`: the sanitizer for untrusted text printed to a terminal. Kept tiny: the CLI's error path loads it for every invocation. */
export { terminalLine, terminalText } from './terminal-text.js';
