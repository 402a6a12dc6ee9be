import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolEscalation } from '@forge/core';
import { bubblewrapArguments } from './bubblewrap.js';
import { commandEnvironment, type Environment } from './command-environment.js';
import { findProgram, isExecutableFile } from './find-program.js';
import { protectWorkspaceEntries } from './protected-paths.js';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxEscape, type SandboxSettings } from './sandbox-settings.js';
import { seatbeltArguments } from './seatbelt.js';

/** What confines commands on this machine: a sandbox program, or nothing and why. */
export type SandboxEnforcement =
  | { readonly kind: 'bubblewrap' | 'seatbelt'; readonly program: string }
  | { readonly kind: 'none'; readonly reason: 'off' | 'missing' | 'unsupported'; readonly detail: string };

/** The sandbox in force: the configured settings and what enforces them. */
export interface SandboxStatus {
  readonly settings: SandboxSettings;
  readonly enforcement: SandboxEnforcement;
}

/** A program ready to start: the argv to spawn (the sandbox program first, when there is one) and its environment. */
export interface SandboxLaunch {
  readonly argv: readonly [string, ...string[]];
  readonly env: Record<string, string>;
  /** Whether the command runs confined, and whether its network is on. */
  readonly confined: boolean;
  readonly network: boolean;
  /** Removes the command's temporary directory and any placeholder; call once the command has ended. */
  release(): Promise<void>;
}

export interface SandboxLaunchRequest {
  readonly argv: readonly [string, ...string[]];
  /** The working directory, inside the workspace. */
  readonly cwd: string;
  /** What the call was approved to leave the sandbox for. */
  readonly escape?: SandboxEscape;
}

/** How commands of one workspace are started: see {@link createCommandSandbox}. */
export interface CommandSandbox {
  readonly status: SandboxStatus;
  /** Whether commands run with the network off (a sandbox enforces it and the settings do not turn it on). */
  readonly networkOff: boolean;
  /** What a call asking `escape` needs approved beyond an ordinary command; undefined when the sandbox does not stop it anyway. */
  escalation(escape: SandboxEscape | undefined): ToolEscalation | undefined;
  /**
   * Prepares one command: its own temporary directory (mode 0700, `TMPDIR`, with the sandbox's
   * `HOME` inside), its environment and its argv. Rejects with `ENOENT` or `EACCES` when the
   * program cannot be started, as spawning it would.
   */
  launch(request: SandboxLaunchRequest): Promise<SandboxLaunch>;
}

export interface CommandSandboxOptions {
  /** The workspace root. */
  readonly root: string;
  readonly settings?: Partial<SandboxSettings>;
  /** Variables never passed besides the secret-named ones (`secrets.env`, configured API key variables). */
  readonly secretNames?: readonly string[];
  /** Forge's environment, the source of the commands' (default `process.env`). */
  readonly env?: Environment;
  /** Default `process.platform`. */
  readonly platform?: NodeJS.Platform;
  /** The bubblewrap program: a path, or a name looked up on `PATH` (default `bwrap`). */
  readonly bubblewrap?: string;
}

const ESCALATIONS: Readonly<Record<SandboxEscape, ToolEscalation>> = {
  network: { id: 'network', label: 'leave the sandbox: network on' },
  none: { id: 'no-sandbox', label: 'leave the sandbox: run unconfined, with write access outside the workspace' },
};

/** Finds what can enforce `settings` on this machine. */
export function detectEnforcement(
  options: Pick<CommandSandboxOptions, 'settings' | 'env' | 'platform' | 'bubblewrap'>,
): SandboxEnforcement {
  const mode = options.settings?.mode ?? DEFAULT_SANDBOX_SETTINGS.mode;
  if (mode === 'off') return { kind: 'none', reason: 'off', detail: 'sandbox.mode is off' };
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  if (platform === 'linux') {
    const wanted = options.bubblewrap ?? 'bwrap';
    const program = findProgram(wanted, env['PATH'], process.cwd());
    if (program !== undefined) return { kind: 'bubblewrap', program };
    return { kind: 'none', reason: 'missing', detail: `bubblewrap (${wanted}) was not found` };
  }
  if (platform === 'darwin') {
    const program = '/usr/bin/sandbox-exec';
    if (isExecutableFile(program)) return { kind: 'seatbelt', program };
    return { kind: 'none', reason: 'missing', detail: `${program} was not found` };
  }
  return { kind: 'none', reason: 'unsupported', detail: `Forge has no sandbox for ${platform}` };
}

/**
 * The sandbox commands of one workspace run in. With bubblewrap (Linux) or Seatbelt (macOS), a
 * command in `workspace-write` may write the workspace (less `.git`, `AGENTS.md`, `.forge/`) and
 * its temporary directory, in `read-only` only the latter, with the network off unless settings or
 * an approved call turn it on. Every command gets a clean environment (see `commandEnvironment`),
 * also when no sandbox program is found or the mode is `off`.
 */
export function createCommandSandbox(options: CommandSandboxOptions): CommandSandbox {
  const settings: SandboxSettings = { ...DEFAULT_SANDBOX_SETTINGS, ...options.settings };
  const enforcement = detectEnforcement(options);
  const env = options.env ?? process.env;
  const secretNames = options.secretNames ?? [];
  const enforced = enforcement.kind !== 'none';
  const networkOff = enforced && !settings.network;

  return {
    status: { settings, enforcement },
    networkOff,
    escalation(escape) {
      if (escape === undefined || !enforced) return undefined;
      if (escape === 'network' && !networkOff) return undefined;
      return ESCALATIONS[escape];
    },
    async launch(request) {
      const [program, ...args] = request.argv;
      // Without a sandbox program there is nothing to leave, and nothing was approved: a call's escape changes nothing.
      const escape = enforced ? request.escape : undefined;
      const unconfined = !enforced || escape === 'none';
      const policy = settings.mode === 'off' || escape === 'none' ? 'inherit' : 'allow-list';
      const releases: (() => Promise<void>)[] = [];
      const release = async () => {
        for (const step of releases.splice(0).reverse()) await step();
      };
      try {
        let temporaryDirectory: string | undefined;
        if (!unconfined || policy === 'allow-list') {
          const made = await realpath(await mkdtemp(path.join(tmpdir(), 'forge-command-')));
          releases.push(() => rm(made, { recursive: true, force: true }));
          await mkdir(path.join(made, 'home'));
          temporaryDirectory = made;
        }
        const environment = commandEnvironment({
          source: env,
          policy,
          pass: settings.env,
          secretNames,
          ...(temporaryDirectory === undefined
            ? {}
            : { home: path.join(temporaryDirectory, 'home'), temporaryDirectory }),
        });
        const resolved = findProgram(program, environment['PATH'], request.cwd);
        if (resolved === undefined) {
          const code = program.includes('/') && existsSync(path.resolve(request.cwd, program)) ? 'EACCES' : 'ENOENT';
          throw Object.assign(new Error(`spawn ${program} ${code}`), { code });
        }
        if (unconfined) return { argv: request.argv, env: environment, confined: false, network: true, release };

        const network = !networkOff || escape === 'network';
        const root = await realpath(options.root);
        const writable = temporaryDirectory === undefined ? [] : [temporaryDirectory];
        const readOnly: string[] = [];
        if (settings.mode === 'workspace-write') {
          writable.unshift(root);
          const protectedPaths = await protectWorkspaceEntries(root);
          releases.push(() => protectedPaths.release());
          readOnly.push(...protectedPaths.readOnly);
        }
        const confinement = { writable, readOnly, network, cwd: request.cwd };
        const wrapped =
          enforcement.kind === 'bubblewrap'
            ? bubblewrapArguments(confinement, [program, ...args])
            : seatbeltArguments(confinement, [program, ...args]);
        return { argv: [enforcement.program, ...wrapped], env: environment, confined: true, network, release };
      } catch (error) {
        await release();
        throw error;
      }
    },
  };
}
