import type { ContextPolicy, InstructionSnapshot } from '@forge/core';
import { selectRequestView } from '@forge/core/view';
import { type SessionTranscript } from '@forge/persistence';
import {
  estimationOnlyModel,
  requestViewCheckpoint,
  type SessionCompactResult,
  type SessionHandle,
  SESSION_CHECKPOINT_OPTIONS,
} from '@forge/sessions';

/** The window Codex reported for the session's latest Codex run that reported one. */
function reportedCodexWindow(transcript: SessionTranscript): number | undefined {
  for (const run of [...transcript.runs].reverse()) {
    const window = run.engine?.name === 'codex' ? run.engine.context?.modelContextWindow : undefined;
    if (typeof window === 'number' && window > 0) return window;
  }
  return undefined;
}

/**
 * Before a Codex turn that starts a new thread from Forge's view (the session's thread cannot be
 * continued), the wrapper is measured with core's view rule, as a native request would be: the
 * current checkpoint and every message after it, the instructions and the request, counted by the
 * conservative estimator against the window Codex last reported (the fallback window before it
 * reported one). In mode `compact`, past `compactAtRatio`, the session is compacted first
 * (`forge-state`, the recent tail verbatim, down to `compactTargetRatio`), so the new thread
 * starts with the early turns summarized rather than the conversation cut by Codex. Other modes
 * never compact; undefined when nothing was compacted.
 */
export async function compactBeforeNewThread(input: {
  readonly session: SessionHandle;
  readonly policy: ContextPolicy;
  readonly instructions: InstructionSnapshot;
  readonly request: string;
  /** `codex:<model>`, for the estimator's label. */
  readonly modelLabel: string;
}): Promise<SessionCompactResult | undefined> {
  const { session, policy } = input;
  if (policy.mode !== 'compact' || session.messages.length === 0) return undefined;
  const window = reportedCodexWindow(session.transcript());
  const model = estimationOnlyModel(input.modelLabel, {
    contextWindowTokens: window ?? policy.fallbackContextWindowTokens,
  });
  const view = session.selectView({ mode: 'compact', model });
  const checkpoint = requestViewCheckpoint(view);
  const measured = await selectRequestView({
    transcript: session.messages,
    ...(checkpoint === undefined ? {} : { checkpoint }),
    policy,
    model,
    fixed: {
      instructions: input.instructions.text,
      currentRequest: { role: 'user', content: input.request },
      tools: [],
    },
  });
  if (measured.decision.kind !== 'compact') return undefined;
  const result = await session.compact({
    model,
    instructions: input.instructions,
    context: policy,
    compaction: { ...SESSION_CHECKPOINT_OPTIONS, strategy: { kind: 'forge-state' } },
    trigger: measured.decision.trigger,
  });
  return result.outcome.kind === 'compacted' ? result : undefined;
}
