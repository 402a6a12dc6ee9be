import { configuredSandboxStatus } from '../agent/command-sandbox.js';
import { loadCliConfig } from '../config/cli-config.js';
import { buildConfigReport, renderConfigReport } from '../config/config-report.js';
import { ExitCode } from '../exit-codes.js';
import { styleFor } from '../output/style.js';
import { fileExists } from '../file-exists.js';
import type { ConfigShowOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge config show [--json]`: the effective configuration (defaults < user file < project file <
 * environment < flags) with the source of every value, and which sandbox is in force here. Header values of compatible servers and
 * `env` values of MCP servers are masked. Invalid configuration exits 2 like every other command.
 */
export async function execute({ options, io }: CommandInvocation<ConfigShowOptions>): Promise<number> {
  const loaded = await loadCliConfig({ io, globals: options, quiet: true });
  const { files } = loaded.loaded;
  const exists = {
    user: await fileExists(files.user),
    project: files.project !== files.user && (await fileExists(files.project)),
  };
  const report = buildConfigReport(loaded, exists, configuredSandboxStatus(loaded.loaded.config, io));
  io.stdout.write(
    options.json === true
      ? `${JSON.stringify(report, null, 2)}\n`
      : renderConfigReport(report, styleFor(io.stdout, io.env)),
  );
  return ExitCode.ok;
}
