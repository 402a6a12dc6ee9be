import {
  addUsage,
  emptyUsage,
  EVENT_SCHEMA_VERSION,
  type InstructionSnapshot,
  type RunResult,
  type Usage,
} from '@forge/core';
import type { SessionEngineInput } from '@forge/sessions';
import type { CodexAppServer } from '../app-server/client.js';
import { compactCodexThread, type CodexCompactionResult } from '../engine/compact-thread.js';
import type { CodexEngineEvent, CodexEventEnvelope, CodexTokenUsageRecord } from '../engine/events.js';
import { contextOf } from './engine-facts.js';
import type { CodexThreadChoice } from './thread-choice.js';

/** The engine turn `/compact` records: Codex compacts the session's thread; its events, usage and facts are the run's. */
export async function runCodexCompaction(
  context: {
    readonly running: CodexAppServer;
    readonly choice: Extract<CodexThreadChoice, { kind: 'continue' }>;
    readonly instructions: InstructionSnapshot;
    readonly input: SessionEngineInput;
  },
  onCompacted: (compacted: CodexCompactionResult) => void,
) {
  const { running, choice, instructions, input } = context;
  const envelope = envelopes(input.runId, input.sessionId);
  const compacted = await compactCodexThread(running, choice.threadId);
  onCompacted(compacted);
  input.onEvent(
    envelope({
      type: 'codex.compaction.completed',
      compaction: { turnId: compacted.turnId, itemId: compacted.itemId },
    }),
  );
  for (const usage of compacted.tokenUsage) input.onEvent(envelope({ type: 'codex.usage.recorded', usage }));
  const usage = compacted.tokenUsage.reduce((total, record) => addUsage(total, usageOfReport(record)), emptyUsage);
  const engineFacts = {
    name: 'codex',
    version: running.info.version,
    thread: { id: choice.threadId, model: choice.model, rolloutPath: choice.rolloutPath },
    ...contextOf(compacted.tokenUsage),
    compactions: 1,
  };
  const result: RunResult = {
    runId: input.runId,
    status: 'completed',
    messages: [],
    text: '',
    steps: compacted.tokenUsage.length,
    usage,
    instructionsHash: instructions.hash,
  };
  return { result, engineFacts };
}

function usageOfReport(record: CodexTokenUsageRecord): Usage {
  return {
    inputTokens: record.last.inputTokens,
    cacheReadTokens: record.last.cachedInputTokens,
    cacheWriteTokens: undefined,
    outputTokens: record.last.outputTokens,
    reasoningTokens: record.last.reasoningOutputTokens,
  };
}

/** Numbered envelopes for the events a compaction run writes to its trace (it has no `runCodexTurn` emitter). */
function envelopes(runId: string, sessionId: string): (event: CodexEngineEvent) => CodexEventEnvelope {
  let sequence = 0;
  return (event) => ({
    schemaVersion: EVENT_SCHEMA_VERSION,
    runId,
    sessionId,
    sequence: sequence++,
    timestamp: new Date().toISOString(),
    event,
  });
}
