import { checkpointHash, type ContextMode, type EventEnvelope } from '@forge/core';
import type { ExpandedTurn } from '../fixture/expand.js';
import { EvalSession } from './eval-session.js';
import { planForgeStateCheckpoint, rebuildCheckpoint, type InstalledCheckpoint } from './harness-checkpoint.js';
import type { CompactionRecord, ModeContext, ModeRunner, ModeSession, ModeTurnResult } from './types.js';
import { turnBudget } from './view-budget.js';

function turnResult(result: ModeTurnResult['result'], events: EventEnvelope[], extra: Partial<ModeTurnResult> = {}): ModeTurnResult {
  return { result, compactions: [], noProgressStops: 0, overflowRecoveries: 0, memoryTexts: [], events, ...extra };
}

/** A mode that runs every turn through `SessionHandle.runTurn` with the whole transcript as history. */
function storedMode(id: 'off' | 'warn', mode: ContextMode, label: string): ModeRunner {
  return {
    id,
    label,
    family: 'forge',
    compacts: false,
    implementation: `SessionHandle.runTurn, context.mode ${mode}, whole transcript as history`,
    async start(context: ModeContext): Promise<ModeSession> {
      const session = await EvalSession.open(context);
      return {
        async runTurn(turn: ExpandedTurn) {
          const events: EventEnvelope[] = [];
          return turnResult(await session.runStored(turn, mode, events), events);
        },
        restart: () => session.restart(),
        close: () => session.close(),
      };
    },
  };
}

export const offMode: ModeRunner = storedMode('off', 'off', 'off: no context management, every stored message sent');
export const warnMode: ModeRunner = storedMode('warn', 'warn', 'warn: budget measured and warned about, nothing changed');

/**
 * `shadow`: sends what `warn` sends, and at each turn start plans the `forge-state` compaction
 * `compact` would make, recording what it would reclaim without installing it.
 */
export const shadowHarnessMode: ModeRunner = {
  id: 'shadow',
  label: 'shadow: compaction planned and measured, never installed',
  family: 'forge',
  compacts: false,
  implementation: 'SessionHandle.runTurn in mode shadow; the harness plans forge-state checkpoints (buildForgeStateCheckpoint) and records their savings',
  async start(context) {
    const session = await EvalSession.open(context);
    let planned: InstalledCheckpoint | undefined;
    return {
      async runTurn(turn) {
        const instructions = await context.instructions();
        const budget = await turnBudget(context, context.model, instructions, turn, session.toolDefinitions());
        const plan = await planForgeStateCheckpoint({
          root: context.workspace.root,
          entries: session.entries(),
          installed: planned,
          budget,
          recentTailTokens: context.policy.recentTailTokens,
        });
        planned = plan.installed;
        const compactions: CompactionRecord[] =
          plan.reclaimedTokens === undefined ? [] : [{ turn: turn.index, reclaimedTokens: plan.reclaimedTokens, strategy: 'forge-state', kind: 'shadow' }];
        const events: EventEnvelope[] = [];
        return turnResult(await session.runStored(turn, 'shadow', events), events, { compactions, memoryTexts: plan.view === undefined ? [] : [plan.view] });
      },
      restart: () => session.restart(),
      close: () => session.close(),
    };
  },
};

/**
 * `compact` with the `forge-state` strategy, done by the harness with core's pure functions: at
 * each turn start, when instructions, request, tools, checkpoint and tail would pass `warnAtRatio`
 * of the input budget, everything older than the `recentTailTokens` tail becomes a new checkpoint;
 * the turn then sends the checkpoint view and the tail. No compaction inside a run, no overflow
 * recovery.
 */
export const compactForgeStateHarnessMode: ModeRunner = {
  id: 'compact:forge-state',
  label: 'compact (forge-state): deterministic checkpoint + recent tail',
  family: 'forge',
  compacts: true,
  implementation:
    'harness: buildForgeStateCheckpoint + renderCheckpointView + selectRecentTail at turn start, installed as ModelRequest.checkpoint; no in-run compaction, no overflow recovery',
  async start(context) {
    const session = await EvalSession.open(context);
    let installed: InstalledCheckpoint | undefined;
    return {
      async runTurn(turn) {
        const instructions = await context.instructions();
        const budget = await turnBudget(context, context.model, instructions, turn, session.toolDefinitions());
        const plan = await planForgeStateCheckpoint({
          root: context.workspace.root,
          entries: session.entries(),
          installed,
          budget,
          recentTailTokens: context.policy.recentTailTokens,
        });
        installed = plan.installed;
        const compactions: CompactionRecord[] =
          plan.reclaimedTokens === undefined ? [] : [{ turn: turn.index, reclaimedTokens: plan.reclaimedTokens, strategy: 'forge-state', kind: 'applied' }];
        const history = session.messages.slice(installed?.tailStart ?? 0);
        const events: EventEnvelope[] = [];
        const result = await session.runWithView(turn, 'warn', { history, ...(plan.view === undefined ? {} : { checkpoint: plan.view }) }, events, context.model);
        return turnResult(result, events, { compactions, noProgressStops: plan.noProgress ? 1 : 0, memoryTexts: plan.view === undefined ? [] : [plan.view] });
      },
      async restart() {
        // The new process keeps only what is stored: the transcript and where the tail starts.
        // The checkpoint is rebuilt from them and must come back byte-identical.
        const before = installed;
        await session.restart();
        if (before === undefined) return [];
        installed = rebuildCheckpoint(session.entries().slice(0, before.checkpoint.source.messageCount), before.tailStart);
        return checkpointHash(installed.checkpoint) === checkpointHash(before.checkpoint) ? [] : ['checkpoint-changed-across-restart'];
      },
      close: () => session.close(),
    };
  },
};
