import { formatBytes } from '@forge/bounded-read';
import { terminalLine } from '@forge/core/terminal';
import { findPrunable, prune } from '@forge/persistence';
import { loadCliConfig } from '../config/cli-config.js';
import { ExitCode } from '../exit-codes.js';
import type { GcOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge gc [--dry-run] [--json]`: removes run traces older than `traces.keepDays` that are not
 * among the newest `traces.keepRuns`, and files a crash left behind in FORGE_HOME (session build
 * directories, index temporaries). Session logs are never removed. `--dry-run` lists the same
 * files and removes nothing.
 */
export async function execute({ options, io }: CommandInvocation<GcOptions>): Promise<number> {
  const { forgeHome, loaded } = await loadCliConfig({ io, globals: options });
  const policy = loaded.config.traces;
  const candidates = await findPrunable(forgeHome, policy);
  const bytes = candidates.reduce((sum, candidate) => sum + candidate.bytes, 0);
  const removed = options.dryRun === true ? 0 : await prune(candidates);
  if (options.json === true) {
    io.stdout.write(`${JSON.stringify({ dryRun: options.dryRun === true, policy, candidates, bytes, removed })}\n`);
    return ExitCode.ok;
  }
  const verb = options.dryRun === true ? 'would remove' : 'removed';
  for (const candidate of candidates)
    io.stdout.write(`${verb} ${terminalLine(candidate.path)} (${formatBytes(candidate.bytes)}): ${candidate.reason}\n`);
  io.stdout.write(
    candidates.length === 0
      ? `Nothing to prune in ${forgeHome} (traces are kept ${policy.keepDays} days, the newest ${policy.keepRuns} always; session logs are never pruned).\n`
      : `${options.dryRun === true ? 'Would free' : 'Freed'} ${formatBytes(bytes)} in ${candidates.length} file(s); session logs are never pruned.\n`,
  );
  return ExitCode.ok;
}
