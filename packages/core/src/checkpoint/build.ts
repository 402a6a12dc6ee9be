import { InvalidInputError } from '../errors.js';
import type { Message } from '../messages.js';
import { hashMessages, MessagesHasher } from '../hashing.js';
import { splitIntoGroups } from '../view/groups.js';
import { CHECKPOINT_CAPS, type CheckpointCaps } from './caps.js';
import { buildDigest } from './digest.js';
import type { CheckpointTranscriptEntry } from './host-metadata.js';
import { finishHostState } from './host-state.js';
import { capMemory } from './memory-apply.js';
import { replayMemory } from './memory-replay.js';
import { statedConstraintRecords } from './user-requests.js';
import { selectWorkingSet, type WorkingSetLimits } from './working-set.js';
import {
  CHECKPOINT_SAFETY_LABELS,
  type CheckpointMemory,
  type ConstraintRecord,
  type ContextCheckpoint,
  type EvidenceRef,
  type ForgeStateCheckpoint,
} from './schema.js';

export interface BuildForgeStateCheckpointInput {
  /** The canonical transcript, oldest first; an entry's index is its `seq`. */
  readonly transcript: readonly CheckpointTranscriptEntry[];
  /** Where the retained tail starts: `[0, tailStart)` is summarized. Must be a safe group boundary. */
  readonly tailStart: number;
  /** Applied to every text taken from the transcript or memory (for example `createRedactor().redact`). */
  readonly redact: (text: string) => string;
  /** Memory to carry; by default it is replayed from the transcript's accepted `checkpoint_note` calls. */
  readonly memory?: CheckpointMemory;
  readonly caps?: CheckpointCaps;
  /**
   * `latest` (default): the task is the latest user request. `all`: the earlier requests are kept
   * too (`state.earlierRequests`), and the constraints the user stated in any request become
   * memory constraints with that request as evidence; for sessions whose turns Forge did not run
   * itself (the Codex engine, an import), where no `checkpoint_note` recorded them.
   */
  readonly requests?: 'latest' | 'all';
  /**
   * Keep the files the agent read or edited most recently in hand (`workingSet`), within these
   * limits; without it the checkpoint has no working set.
   */
  readonly workingSet?: WorkingSetLimits;
}

function assertSafeTailStart(messages: readonly Message[], tailStart: number): void {
  if (!Number.isInteger(tailStart) || tailStart < 0 || tailStart > messages.length) {
    throw new InvalidInputError({
      message: `Cannot build a checkpoint: tailStart ${tailStart} is outside the transcript of ${messages.length} messages. Pass an index from 0 to ${messages.length}.`,
    });
  }
  if (tailStart === 0 || tailStart === messages.length) return;
  if (!splitIntoGroups(messages).some((group) => group.start === tailStart)) {
    throw new InvalidInputError({
      message: `Cannot build a checkpoint: tailStart ${tailStart} splits a message group (a tool call from its result, or reasoning from its message). Choose a group boundary, for example with selectTail().`,
    });
  }
}

function redactEvidence(evidence: EvidenceRef, redact: (text: string) => string): EvidenceRef {
  return evidence.source === 'artifact' ? { source: 'artifact', uri: redact(evidence.uri) } : evidence;
}

function redactMemory(memory: CheckpointMemory, redact: (text: string) => string): CheckpointMemory {
  const optional = (text: string | null): string | null => (text === null ? null : redact(text));
  return {
    plan: memory.plan.map((step) => ({ ...step, text: redact(step.text) })),
    decisions: memory.decisions.map((decision) => ({
      ...decision,
      topic: optional(decision.topic),
      decision: redact(decision.decision),
      rationale: redact(decision.rationale),
      evidence: redactEvidence(decision.evidence, redact),
    })),
    facts: memory.facts.map((fact) => ({
      ...fact,
      key: redact(fact.key),
      value: redact(fact.value),
      evidence: redactEvidence(fact.evidence, redact),
      dependsOn: fact.dependsOn.map((dependency) => ({ ...dependency, uri: redact(dependency.uri) })),
    })),
    rejectedApproaches: memory.rejectedApproaches.map((item) => ({
      ...item,
      approach: redact(item.approach),
      reason: redact(item.reason),
      retryOnlyIf: optional(item.retryOnlyIf),
      evidence: redactEvidence(item.evidence, redact),
    })),
    constraints: memory.constraints.map((item) => ({ ...item, text: redact(item.text) })),
    nextAction:
      memory.nextAction === null
        ? null
        : {
            ...memory.nextAction,
            text: redact(memory.nextAction.text),
            evidence: redactEvidence(memory.nextAction.evidence, redact),
          },
  };
}

/** A constraint's text for telling repeats apart: case, spacing and closing punctuation do not count. */
export function constraintKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!;:,]+$/, '')
    .trim();
}

/**
 * The user's stated constraints and the noted ones, both already redacted, oldest first, each once
 * (a noted copy of a stated clause, or a clause stated again, is the same constraint).
 */
function mergeConstraints(stated: readonly ConstraintRecord[], memory: CheckpointMemory): CheckpointMemory {
  const seen = new Set<string>();
  const constraints: ConstraintRecord[] = [];
  for (const constraint of [...stated, ...memory.constraints].sort((left, right) => left.seq - right.seq)) {
    const key = constraintKey(constraint.text);
    if (seen.has(key)) continue;
    seen.add(key);
    constraints.push(constraint);
  }
  return { ...memory, constraints };
}

/** User messages of the summarized range that the TASK section quotes in full: the digest gives them no line of their own. */
function quotedRequests(state: ForgeStateCheckpoint['state'], tailStart: number): Set<number> {
  const quoted = new Set(
    (state.earlierRequests ?? []).map((request) => request.evidence.messageIndex).filter((index) => index < tailStart),
  );
  if (state.task !== null && state.task.evidence.messageIndex < tailStart) quoted.add(state.task.evidence.messageIndex);
  return quoted;
}

/**
 * Builds the deterministic `forge-state` checkpoint: no model call, so it works even when the
 * window is full. Host-owned state is reduced from the whole transcript (the latest user message is
 * the task; artifacts, hashes, commands, changed files and failures come from tool-result
 * metadata); memory is the validated `checkpoint_note` history; the digest covers the summarized
 * prefix `[0, tailStart)`. Same input, same bytes: there is no clock and no randomness, and the
 * source and tail hashes are SHA-256 over canonical JSON of the two message ranges.
 * `estimatedTokens` is left at 0: only the model adapter can count the view, and compaction sets
 * it from the adapter's estimate (`finishCheckpoint`).
 *
 * @throws InvalidInputError when `tailStart` is outside the transcript or splits a message group.
 */
export function buildForgeStateCheckpoint(input: BuildForgeStateCheckpointInput): ForgeStateCheckpoint {
  const caps = input.caps ?? CHECKPOINT_CAPS;
  const messages = input.transcript.map((entry) => entry.message);
  assertSafeTailStart(messages, input.tailStart);
  const { memory: replayed, observer } = replayMemory(input.transcript, caps);
  const requests = input.requests ?? 'latest';
  // Stated constraints come redacted from the requests; only the noted memory needs redacting here.
  const noted = redactMemory(input.memory ?? replayed, input.redact);
  const memory = capMemory(
    requests === 'all'
      ? mergeConstraints(statedConstraintRecords(observer.userMessages, caps, input.redact), noted)
      : noted,
    caps,
  );
  const state = finishHostState(observer, caps, input.redact, requests);
  const checkpoint: ForgeStateCheckpoint = {
    schemaVersion: 1,
    strategy: 'forge-state',
    source: {
      summarizedThrough: input.tailStart,
      sourceHash: hashMessages(messages, 0, input.tailStart),
      tailStart: input.tailStart,
      tailHash: hashMessages(messages, input.tailStart),
      messageCount: messages.length,
    },
    state,
    memory,
    digest: buildDigest(
      input.transcript,
      input.tailStart,
      caps,
      input.redact,
      requests === 'all' ? quotedRequests(state, input.tailStart) : new Set(),
    ),
    estimatedTokens: 0,
    safetyLabels: [...CHECKPOINT_SAFETY_LABELS],
    ...(input.workingSet === undefined
      ? {}
      : { workingSet: selectWorkingSet(input.transcript, input.workingSet, input.redact) }),
  };
  return checkpoint;
}

/** True when the checkpoint still stands for the same messages of `transcript` (range and hashes). */
export function checkpointMatchesTranscript(
  checkpoint: ContextCheckpoint,
  transcript: readonly CheckpointTranscriptEntry[],
): boolean {
  return sourceMatchesTranscript(checkpoint.source, transcript);
}

/**
 * Whether a checkpoint's provenance (its summarized source and kept tail, by range and hash) still
 * describes `transcript`. Hashes message by message: no string of the whole transcript is built.
 */
export function sourceMatchesTranscript(
  source: {
    readonly summarizedThrough: number;
    readonly sourceHash: string;
    readonly tailStart: number;
    readonly tailHash: string;
    readonly messageCount: number;
  },
  transcript: readonly CheckpointTranscriptEntry[],
): boolean {
  if (source.messageCount > transcript.length || source.tailStart > source.messageCount) return false;
  const hashRange = (from: number, to: number): string => {
    const hasher = new MessagesHasher();
    for (let index = from; index < to; index += 1) hasher.add((transcript[index] as CheckpointTranscriptEntry).message);
    return hasher.digest();
  };
  return (
    hashRange(0, source.summarizedThrough) === source.sourceHash &&
    hashRange(source.tailStart, source.messageCount) === source.tailHash
  );
}
