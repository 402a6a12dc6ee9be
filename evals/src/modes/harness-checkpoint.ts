import {
  buildForgeStateCheckpoint,
  CHECKPOINT_CAPS,
  createRedactor,
  renderCheckpointView,
  selectRecentTail,
  type CheckpointTranscriptEntry,
  type ForgeStateCheckpoint,
} from '@forge/core';
import { hashWorkspaceFile } from '../workspace/workspace.js';
import { messagesTokens, messageTokens, textTokens, type TurnBudget } from './view-budget.js';

/*
 * The harness's own `forge-state` compaction, built only from core's pure functions
 * (selectRecentTail, buildForgeStateCheckpoint, renderCheckpointView). It stands in for the run
 * loop's compaction until that is available: it compacts at turn start only, never inside a run,
 * and does no overflow recovery.
 */

/** A checkpoint the harness installed, and where the verbatim tail after it starts. */
export interface InstalledCheckpoint {
  readonly checkpoint: ForgeStateCheckpoint;
  readonly tailStart: number;
}

export interface CheckpointPlan {
  readonly installed: InstalledCheckpoint | undefined;
  /** The rendered view for this turn (facts judged against the workspace as it is now). */
  readonly view: string | undefined;
  /** Set when a new checkpoint replaced the view: tokens of the view before minus after. */
  readonly reclaimedTokens?: number;
  /** True when the view was over budget but no compaction could reclaim anything. */
  readonly noProgress: boolean;
}

const redactor = createRedactor();

/**
 * Current hashes, read from the workspace, of the files the checkpoint's facts depend on: the
 * view uses current hashes only to judge facts VALID or SUSPECT.
 */
async function workspaceHashes(root: string, checkpoint: ForgeStateCheckpoint): Promise<Map<string, string | null>> {
  const hashes = new Map<string, string | null>();
  for (const fact of checkpoint.memory.facts) {
    for (const { uri } of fact.dependsOn) {
      if (uri.startsWith('file:') && !hashes.has(uri)) hashes.set(uri, await hashWorkspaceFile(root, uri.slice(5)));
    }
  }
  return hashes;
}

/** The checkpoint for `tailStart` built again from the transcript (after a restart). */
export function rebuildCheckpoint(entries: readonly CheckpointTranscriptEntry[], tailStart: number): InstalledCheckpoint {
  return { checkpoint: buildForgeStateCheckpoint({ transcript: entries, tailStart, redact: (text) => redactor.redact(text) }), tailStart };
}

/** The view of an installed checkpoint with facts judged against the workspace now. */
export async function renderInstalled(root: string, installed: InstalledCheckpoint): Promise<string> {
  return renderCheckpointView(installed.checkpoint, CHECKPOINT_CAPS, await workspaceHashes(root, installed.checkpoint));
}

/**
 * Keeps the current checkpoint while instructions, request, tools, checkpoint and tail fit under
 * the threshold; otherwise summarizes everything older than the `recentTailTokens` tail into a new
 * checkpoint. A compaction that would not shrink the view is refused (no progress).
 */
export async function planForgeStateCheckpoint(options: {
  readonly root: string;
  readonly entries: readonly CheckpointTranscriptEntry[];
  readonly installed: InstalledCheckpoint | undefined;
  readonly budget: TurnBudget;
  readonly recentTailTokens: number;
}): Promise<CheckpointPlan> {
  const { root, entries, installed, budget } = options;
  const messages = entries.map((entry) => entry.message);
  const start = installed?.tailStart ?? 0;
  const currentView = installed === undefined ? undefined : await renderInstalled(root, installed);
  const viewTokens = textTokens(currentView) + messagesTokens(messages.slice(start));
  if (budget.baseTokens + viewTokens <= budget.thresholdTokens) return { installed, view: currentView, noProgress: false };

  const tailStart = selectRecentTail(messages, { budgetTokens: options.recentTailTokens, countTokens: messageTokens });
  if (tailStart <= start) return { installed, view: currentView, noProgress: true };
  const next = rebuildCheckpoint(entries, tailStart);
  const view = await renderInstalled(root, next);
  const reclaimedTokens = viewTokens - (textTokens(view) + messagesTokens(messages.slice(tailStart)));
  if (reclaimedTokens <= 0) return { installed, view: currentView, noProgress: true };
  return { installed: next, view, reclaimedTokens, noProgress: false };
}
