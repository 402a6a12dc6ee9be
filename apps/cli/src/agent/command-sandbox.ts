import type { ForgeConfig } from '@forge/config';
import {
  BUBBLEWRAP_INSTALL_HINT,
  createCommandSandbox,
  detectEnforcement,
  type CommandSandbox,
  type SandboxStatus,
} from '@forge/tools';
import type { CliIo } from '../io.js';

/** Environment variable naming the bubblewrap program, for a non-standard install (default: `bwrap` on PATH). */
export const BUBBLEWRAP_VARIABLE = 'FORGE_BWRAP';

let noticeShown = false;

/**
 * The sandbox of one workspace from the configuration: `sandbox.*`, with `secrets.env` and the
 * API key variables of configured servers kept out of every command's environment. Commands (and
 * bubblewrap, on `PATH`) come from the process environment, as they always did; `FORGE_BWRAP` in
 * the CLI's environment names another bubblewrap program. Where no
 * sandbox program is found, says once per process on stderr what the sandbox would do, how to
 * install it, and that approvals are then the only guard.
 */
export function configuredSandbox(options: {
  readonly root: string;
  readonly config: ForgeConfig;
  readonly io: CliIo;
}): CommandSandbox {
  const { root, config, io } = options;
  const sandbox = createCommandSandbox({
    root,
    settings: config.sandbox,
    secretNames: [
      ...config.secrets.env,
      ...config.models.flatMap((entry) => (entry.apiKeyVariable === undefined ? [] : [entry.apiKeyVariable])),
    ],
    ...bubblewrapOption(io),
  });
  const notice = missingSandboxNotice(sandbox.status);
  if (notice !== undefined && !noticeShown) {
    noticeShown = true;
    io.stderr.write(notice);
  }
  return sandbox;
}

function bubblewrapOption(io: CliIo): { bubblewrap?: string } {
  const program = io.env[BUBBLEWRAP_VARIABLE];
  return program === undefined || program === '' ? {} : { bubblewrap: program };
}

/** The sandbox the configuration would put in force here, without starting anything or printing the notice. */
export function configuredSandboxStatus(config: ForgeConfig, io: CliIo): SandboxStatus {
  return {
    settings: config.sandbox,
    enforcement: detectEnforcement({ settings: config.sandbox, ...bubblewrapOption(io) }),
  };
}

/** The one-time notice when the configured sandbox cannot be enforced; undefined when it is, or when it is off. */
export function missingSandboxNotice(status: SandboxStatus): string | undefined {
  const { enforcement, settings } = status;
  if (enforcement.kind !== 'none' || enforcement.reason === 'off') return undefined;
  const writes =
    settings.mode === 'read-only'
      ? 'nowhere but a temporary directory'
      : 'only in the workspace (not .git, AGENTS.md, .forge/) and a temporary directory';
  return (
    `forge: warning: commands run without a sandbox: ${enforcement.detail}. ` +
    `With one, run_command would write ${writes}, with the network ${settings.network ? 'on' : 'off'}. ` +
    `Until then approvals are the only guard on what commands do (they still get a clean environment without secrets).` +
    (enforcement.reason === 'missing' && enforcement.detail.startsWith('bubblewrap')
      ? ` Install it: ${BUBBLEWRAP_INSTALL_HINT}.`
      : '') +
    '\n'
  );
}

/** One line saying which sandbox is in force, for `forge config show` and `/permissions`. */
export function describeSandbox(status: SandboxStatus): string {
  const { enforcement, settings } = status;
  if (enforcement.kind === 'none') {
    return enforcement.reason === 'off'
      ? 'off (commands are not confined; clean environment only)'
      : `none: ${enforcement.detail} (approvals are the only guard)`;
  }
  return `${settings.mode} with ${enforcement.kind} (${enforcement.program}), network ${settings.network ? 'on' : 'off'}`;
}
