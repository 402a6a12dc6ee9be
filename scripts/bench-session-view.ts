/*
 * What a checkpoint costs a session, for synthetic sessions of about 10K, 100K and 1M tokens (one
 * token per four characters): choosing the view the first time (validate the stored checkpoint,
 * check its source and tail hashes against the transcript, render it, take every message after
 * it); choosing it on later turns, when the session handle reuses the resolved checkpoint (render
 * only); and one manual forge-state compaction (plan, build, validate, estimate;
 * the install is a no-op here). No model is called.
 *
 *   npx tsx --conditions=@forge/source scripts/bench-session-view.ts
 */
import { performance } from 'node:perf_hooks';
import { createConservativeEstimator, resolveContextPolicy, sha256Hex, type JsonValue } from '@forge/core';
import { CHECKPOINT_CAPS, type CheckpointTranscriptEntry } from '@forge/core/checkpoint';
import { buildForgeState, compactTranscript } from '@forge/core/compaction';
import { ScriptedModel } from '@forge/core/testing';
import { resolveStoredCheckpoint, selectSessionView } from '@forge/sessions';
import { median, syntheticTranscript, toolCall, toolResult } from './bench-support.js';

const SIZES = [10_000, 100_000, 1_000_000] as const;
const RUNS = 7;

function session(tokens: number): CheckpointTranscriptEntry[] {
  return syntheticTranscript(tokens, (round, push) => {
    const runId = `run_${Math.floor(round / 10)}`;
    const path = `src/module-${round % 40}.ts`;
    const body = `export const value${round} = ${round};\n`.repeat(40);
    if (round % 10 === 0) push({ message: { role: 'user', content: `Round ${round}: refactor ${path}.` }, runId });
    push(toolCall(`r${round}`, 'read_file', { path }, runId));
    push(
      toolResult(`r${round}`, 'read_file', body, runId, {
        path,
        sha256: sha256Hex(body),
        bytes: body.length,
        complete: true,
      }),
    );
    push({ message: { role: 'assistant', content: [{ type: 'text', text: `Round ${round} done.` }] }, runId });
  });
}

async function timed(work: () => unknown): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

const estimator = createConservativeEstimator();
const model = new ScriptedModel([], {
  capabilities: { contextWindowTokens: 2_000_000 },
  estimate: (request) => estimator.estimate(request),
  countMessages: (messages) => estimator.countMessages(messages),
});
const policy = resolveContextPolicy({ mode: 'compact' });
console.log(`per-turn checkpoint cost, median of ${RUNS} runs, 0 model calls`);
console.log('session tokens | messages | first view ms | later views ms | manual compaction ms');
for (const tokens of SIZES) {
  const transcript = session(tokens);
  const tailStart = transcript.findLastIndex((entry) => entry.message.role === 'user');
  const built = buildForgeState({ transcript, tailStart, redact: (text) => text, caps: CHECKPOINT_CAPS });
  const stored = {
    source: built.checkpoint.source,
    checkpoint: built.checkpoint as unknown as JsonValue,
    recordedAt: '2025-01-01T00:00:00.000Z',
  };
  const view = () =>
    selectSessionView({ mode: 'compact', transcript, stored, nativeStates: new Map(), redact: (text) => text });
  const resolved = resolveStoredCheckpoint(stored, transcript);
  const laterView = () =>
    selectSessionView({
      mode: 'compact',
      transcript,
      stored,
      resolved,
      nativeStates: new Map(),
      redact: (text) => text,
    });
  const messages = transcript.map((entry) => entry.message);
  const compaction = () =>
    compactTranscript({
      transcript,
      protectedFrom: transcript.length,
      mode: 'compact',
      trigger: 'manual',
      strategy: { kind: 'forge-state' },
      model,
      policy,
      request: {
        instructions: 'You are Forge.',
        history: messages,
        currentRequest: { role: 'user', content: '' },
        continuation: [],
        tools: [],
      },
      redact: (text) => text,
      step: 0,
      signal: new AbortController().signal,
      emit: () => {},
      install: async () => {},
    });
  view();
  await compaction();
  const views: number[] = [];
  const laterViews: number[] = [];
  const compactions: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    views.push(await timed(view));
    laterViews.push(await timed(laterView));
    compactions.push(await timed(compaction));
  }
  console.log(
    [
      String(tokens).padStart(14),
      String(transcript.length).padStart(8),
      median(views).toFixed(1).padStart(13),
      median(laterViews).toFixed(1).padStart(14),
      median(compactions).toFixed(1).padStart(20),
    ].join(' | '),
  );
}
