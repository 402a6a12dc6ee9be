import type { EngineRunFacts } from '@forge/persistence';
import type { CodexTokenUsageRecord } from '../engine/events.js';
import type { CodexRunResult } from '../engine/run-codex-turn.js';

/** What the run records about Codex: its thread (to continue it next turn), its own context report, its compactions. */
export function engineFacts(result: CodexRunResult, knownRolloutPath: string | null): EngineRunFacts {
  const { codex } = result;
  return {
    name: 'codex',
    version: codex.codexVersion,
    ...(codex.threadId === ''
      ? {}
      : {
          thread: {
            id: codex.threadId,
            model: codex.model ?? 'codex-default',
            rolloutPath: codex.rolloutPath ?? knownRolloutPath,
          },
        }),
    ...contextOf(codex.tokenUsage),
    compactions: codex.compactions.length,
  };
}

/** Codex's own context report: its latest token report, when it sent one. */
export function contextOf(reports: readonly CodexTokenUsageRecord[]): Pick<EngineRunFacts, 'context'> {
  const latest = reports.at(-1);
  if (latest === undefined) return {};
  return {
    context: {
      inputTokens: latest.last.inputTokens,
      cachedInputTokens: latest.last.cachedInputTokens,
      modelContextWindow: latest.modelContextWindow,
    },
  };
}
