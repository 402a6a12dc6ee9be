/**
 * How far a command is confined, from most to least restrictive:
 * - `read-only`: nothing but the command's own temporary directory is writable;
 * - `workspace-write`: the workspace (less `.git`, `AGENTS.md` and `.forge/`) and the temporary
 *   directory are writable;
 * - `off`: no confinement; only the environment is cleaned.
 */
export type SandboxMode = 'read-only' | 'workspace-write' | 'off';

/** Every sandbox mode, from most to least restrictive. */
export const SANDBOX_MODES: readonly SandboxMode[] = ['read-only', 'workspace-write', 'off'];

/**
 * What one `run_command` call may ask for beyond the sandbox, each approved on its own:
 * `network` keeps the file confinement and turns the network on; `none` runs the command
 * outside the sandbox (the environment stays clean).
 */
export type SandboxEscape = 'network' | 'none';

export const SANDBOX_ESCAPES: readonly SandboxEscape[] = ['network', 'none'];

/** The sandbox a user configured (`sandbox.mode`, `sandbox.network`, `sandbox.env`). */
export interface SandboxSettings {
  readonly mode: SandboxMode;
  /** Network inside the sandbox without asking (default false). */
  readonly network: boolean;
  /** Variables passed to commands besides the allow-list; secret-named ones never pass. */
  readonly env: readonly string[];
}

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = Object.freeze({
  mode: 'workspace-write',
  network: false,
  env: Object.freeze([]) as readonly string[],
});

/** Paths inside the workspace a command in `workspace-write` may not change: its git repository, its instructions and Forge's project configuration. */
export const PROTECTED_WORKSPACE_ENTRIES: readonly { readonly name: string; readonly kind: 'file' | 'directory' }[] = [
  { name: '.git', kind: 'directory' },
  { name: 'AGENTS.md', kind: 'file' },
  { name: '.forge', kind: 'directory' },
];
