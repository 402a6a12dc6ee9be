import type { ToolResultPart } from '../messages.js';
import { RUN_COMMAND_TOOL, runCommandMetadata } from './host-metadata.js';
import { runName } from './verification-text.js';

/**
 * What the record says of one step: `failed` (an error result, a non-zero exit, a timeout, a kill
 * or a refused call), `exit 0` (a command that exited 0), or `report` (text that talks about a
 * test or build outcome but is no result: prose, or a tool's output). Only a result's status and
 * the host's metadata decide `failed` and `exit 0`; words never do.
 */
export type StepOutcome = 'failed' | 'exit 0' | 'report';

/** The outcome the result's own status and metadata record, or `null` when they record none. */
export function resultOutcome(result: ToolResultPart): Exclude<StepOutcome, 'report'> | null {
  // An answer the host wrote for a call that never got one (an interrupted import) records no outcome.
  if (result.metadata?.['synthesized'] === true) return null;
  if (result.output.type === 'error-text') return 'failed';
  if (result.metadata?.['declined'] === true) return 'failed';
  if (result.toolName === RUN_COMMAND_TOOL) {
    const metadata = runCommandMetadata(result.metadata);
    if (metadata !== null)
      return metadata.timedOut === true || (metadata.signal ?? null) !== null || metadata.exitCode !== 0
        ? 'failed'
        : 'exit 0';
  }
  // Commands of other hosts (a Codex rollout's exec calls) carry only their exit code.
  const exitCode = result.metadata?.['exitCode'];
  if (typeof exitCode === 'number') return exitCode === 0 ? 'exit 0' : 'failed';
  return null;
}

/** The worst of several outcomes: a failure wins, then a success, then a report. */
export function worstOutcome(outcomes: readonly (StepOutcome | null)[]): StepOutcome | null {
  if (outcomes.includes('failed')) return 'failed';
  if (outcomes.includes('exit 0')) return 'exit 0';
  if (outcomes.includes('report')) return 'report';
  return null;
}

/**
 * The label put in front of a digest line. It comes first so that cutting the line can never leave
 * a failure looking like anything else; a success says only what was recorded (exit 0), never
 * "passing".
 */
export function outcomeLabel(outcome: StepOutcome, runId: string | null): string {
  if (outcome === 'failed') return `[FAILED, historical, ${runName(runId)}]`;
  if (outcome === 'exit 0') return `[exit 0, historical, ${runName(runId)}]`;
  return `[historical, ${runName(runId)}]`;
}
