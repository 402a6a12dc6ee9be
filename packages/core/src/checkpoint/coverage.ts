import { truncateWithoutClaims } from './authority-text.js';
import { constraintKey } from './build.js';
import { CHECKPOINT_CAPS, type CheckpointCaps } from './caps.js';
import type { CheckpointTranscriptEntry } from './host-metadata.js';
import type {
  ChangedFile,
  ConstraintRecord,
  ContextCheckpoint,
  DigestEntry,
  FailureRecord,
  TaskPointer,
} from './schema.js';
import { lastItems, oneLine, truncateText } from './text.js';
import { TranscriptObserver } from './transcript-observer.js';
import { MAX_EARLIER_REQUESTS, earlierRequests, userConstraints } from './user-requests.js';

/*
 * The coverage check: before a checkpoint is installed, everything the record holds about the
 * summarized messages that a model must not lose has to be in it — every user request, every
 * stated constraint, every failed step and every edited file. Deterministic, no model; the same
 * rule for every strategy, since they all carry the host state beside their own payload.
 */

/** What a checkpoint must carry about its summarized messages. */
export type CoverageItemKind = 'request' | 'constraint' | 'failure' | 'changed_file';

/** One thing the record holds: its kind, the message it comes from, and a short text naming it. */
export interface CoverageItem {
  readonly kind: CoverageItemKind;
  readonly seq: number;
  readonly text: string;
}

/** Longest text a coverage item names itself with (events and messages). */
const ITEM_TEXT_CHARS = 120;

interface Required {
  readonly requests: readonly TaskPointer[];
  readonly constraints: readonly ConstraintRecord[];
  readonly failures: readonly FailureRecord[];
  readonly changedFiles: readonly ChangedFile[];
}

/**
 * What the record of `[0, end)` says a checkpoint must carry, each kind bounded by the cap of the
 * section that carries it (the most recent ones; for requests, the first and the most recent, as
 * the task section keeps them). Texts are redacted and cut exactly as the builder does.
 */
function requiredItems(
  transcript: readonly CheckpointTranscriptEntry[],
  end: number,
  taskIndex: number | null,
  caps: CheckpointCaps,
  redact: (text: string) => string,
): Required {
  const observer = new TranscriptObserver();
  for (const entry of transcript.slice(0, end)) observer.observe(entry);
  const clean = (text: string): string => truncateWithoutClaims(oneLine(redact(text)), caps.maxValueChars);
  const task = taskIndex !== null && taskIndex < end ? taskIndex : null;
  const seen = new Set<string>();
  const constraints = userConstraints(observer.userMessages, caps, redact).filter((record) => {
    const key = constraintKey(record.text);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const changed = [...observer.changedFiles.entries()]
    .map(([path, change]) => ({ path: redact(path), hash: change.hash, seq: change.seq }))
    .sort((left, right) => right.seq - left.seq);
  return {
    requests: earlierRequests(observer.userMessages, task, caps, redact),
    constraints: lastItems(constraints, caps.maxConstraints),
    failures: lastItems(observer.failures, caps.maxFailures).map((failure) => ({
      what: clean(failure.what),
      why: clean(failure.why),
      runId: failure.runId,
      seq: failure.seq,
    })),
    changedFiles: changed.slice(0, caps.maxChangedFiles),
  };
}

function digestOf(checkpoint: ContextCheckpoint): readonly DigestEntry[] {
  return checkpoint.strategy === 'forge-state' ? checkpoint.digest.entries : [];
}

function digestLineAt(checkpoint: ContextCheckpoint, seq: number): DigestEntry | undefined {
  return digestOf(checkpoint).find((entry) => entry.seq === seq);
}

function requestCovered(checkpoint: ContextCheckpoint, seq: number): boolean {
  const { state } = checkpoint;
  if (state.task?.evidence.messageIndex === seq) return true;
  if ((state.earlierRequests ?? []).some((request) => request.evidence.messageIndex === seq)) return true;
  return digestLineAt(checkpoint, seq)?.role === 'user';
}

function constraintCovered(checkpoint: ContextCheckpoint, record: ConstraintRecord): boolean {
  const key = constraintKey(record.text);
  if (checkpoint.memory.constraints.some((constraint) => constraintKey(constraint.text) === key)) return true;
  if (
    checkpoint.strategy === 'model-structured' &&
    checkpoint.structured.constraints.some((constraint) => constraintKey(constraint).includes(key))
  )
    return true;
  const line = digestLineAt(checkpoint, record.evidence.messageIndex);
  return line !== undefined && constraintKey(line.text).includes(key);
}

function failureCovered(checkpoint: ContextCheckpoint, failure: FailureRecord): boolean {
  if (checkpoint.state.failures.some((known) => known.seq === failure.seq && known.what === failure.what)) return true;
  return digestLineAt(checkpoint, failure.seq)?.text.startsWith('[FAILED') === true;
}

function changedFileCovered(checkpoint: ContextCheckpoint, file: ChangedFile): boolean {
  if (checkpoint.state.changedFiles.some((known) => known.path === file.path)) return true;
  return (
    checkpoint.strategy === 'model-structured' &&
    checkpoint.structured.changedFiles.some((path) => path === file.path || path === `file:${file.path}`)
  );
}

const itemText = (text: string): string => truncateText(oneLine(text), ITEM_TEXT_CHARS);

function missingOf(checkpoint: ContextCheckpoint, required: Required): CoverageItem[] {
  return [
    ...required.requests
      .filter((request) => !requestCovered(checkpoint, request.evidence.messageIndex))
      .map((request) => ({
        kind: 'request' as const,
        seq: request.evidence.messageIndex,
        text: itemText(request.text),
      })),
    ...required.constraints
      .filter((record) => !constraintCovered(checkpoint, record))
      .map((record) => ({ kind: 'constraint' as const, seq: record.seq, text: itemText(record.text) })),
    ...required.failures
      .filter((failure) => !failureCovered(checkpoint, failure))
      .map((failure) => ({
        kind: 'failure' as const,
        seq: failure.seq,
        text: itemText(`${failure.what}: ${failure.why}`),
      })),
    ...required.changedFiles
      .filter((file) => !changedFileCovered(checkpoint, file))
      .map((file) => ({ kind: 'changed_file' as const, seq: file.seq, text: itemText(file.path) })),
  ];
}

function requiredFor(
  checkpoint: ContextCheckpoint,
  transcript: readonly CheckpointTranscriptEntry[],
  redact: (text: string) => string,
  caps: CheckpointCaps,
): Required {
  return requiredItems(
    transcript,
    checkpoint.source.summarizedThrough,
    checkpoint.state.task?.evidence.messageIndex ?? null,
    caps,
    redact,
  );
}

/**
 * What `checkpoint` misses of the record of the messages it summarizes, in message order within
 * each kind (requests, constraints, failures, edited files). Empty when it covers everything.
 */
export function missingCoverage(
  checkpoint: ContextCheckpoint,
  transcript: readonly CheckpointTranscriptEntry[],
  redact: (text: string) => string,
  caps: CheckpointCaps = CHECKPOINT_CAPS,
): CoverageItem[] {
  return missingOf(checkpoint, requiredFor(checkpoint, transcript, redact, caps));
}

/** The check and, when something is missing, its repair: one pass over the summarized messages. */
export function checkCoverage(
  checkpoint: ContextCheckpoint,
  transcript: readonly CheckpointTranscriptEntry[],
  redact: (text: string) => string,
  caps: CheckpointCaps = CHECKPOINT_CAPS,
): { readonly missing: readonly CoverageItem[]; readonly repair: CoverageRepair | null } {
  const required = requiredFor(checkpoint, transcript, redact, caps);
  const missing = missingOf(checkpoint, required);
  return { missing, repair: missing.length === 0 ? null : repairWith(checkpoint, required, caps) };
}

/**
 * Removes items, oldest first among those `dispensable` lets go, until at most `max` remain.
 * Returns `null` when that is not enough.
 */
function fitList<T>(items: readonly T[], max: number, dispensable: (item: T) => boolean): T[] | null {
  const kept = [...items];
  while (kept.length > max) {
    const index = kept.findIndex(dispensable);
    if (index === -1) return null;
    kept.splice(index, 1);
  }
  return kept;
}

/** The checkpoint with what the record requires added where the schema holds it, and what is still missing. */
export interface CoverageRepair {
  readonly checkpoint: ContextCheckpoint;
  readonly unrepaired: readonly CoverageItem[];
}

/**
 * Adds what `checkpoint` misses to its host state and memory: requests to `state.earlierRequests`,
 * constraints to `memory.constraints`, failures to `state.failures`, edited files to
 * `state.changedFiles`, each list kept within its cap by first dropping what the retained tail
 * shows verbatim anyway, then what the record does not require. What cannot be added within the
 * caps is returned as `unrepaired`. Pure and deterministic.
 */
export function repairCoverage(
  checkpoint: ContextCheckpoint,
  transcript: readonly CheckpointTranscriptEntry[],
  redact: (text: string) => string,
  caps: CheckpointCaps = CHECKPOINT_CAPS,
): CoverageRepair {
  return repairWith(checkpoint, requiredFor(checkpoint, transcript, redact, caps), caps);
}

function repairWith(checkpoint: ContextCheckpoint, required: Required, caps: CheckpointCaps): CoverageRepair {
  const end = checkpoint.source.summarizedThrough;
  const { state, memory } = checkpoint;

  const requiredRequests = new Set(required.requests.map((request) => request.evidence.messageIndex));
  const addedRequests = required.requests.filter(
    (request) => !requestCovered(checkpoint, request.evidence.messageIndex),
  );
  const requests = [...(state.earlierRequests ?? []), ...addedRequests].sort(
    (left, right) => left.evidence.messageIndex - right.evidence.messageIndex,
  );
  const earlier =
    fitList(requests, MAX_EARLIER_REQUESTS, (request) => request.evidence.messageIndex >= end) ??
    fitList(requests, MAX_EARLIER_REQUESTS, (request) => !requiredRequests.has(request.evidence.messageIndex)) ??
    state.earlierRequests ??
    [];

  const requiredKeys = new Set(required.constraints.map((record) => constraintKey(record.text)));
  const addedConstraints = required.constraints.filter((record) => !constraintCovered(checkpoint, record));
  const constraints = [...memory.constraints, ...addedConstraints].sort((left, right) => left.seq - right.seq);
  const keptConstraints =
    fitList(constraints, caps.maxConstraints, (record) => !requiredKeys.has(constraintKey(record.text))) ??
    memory.constraints;

  const requiredFailures = new Set(required.failures.map((failure) => `${failure.seq} ${failure.what}`));
  const addedFailures = required.failures.filter((failure) => !failureCovered(checkpoint, failure));
  const failures = [...state.failures, ...addedFailures].sort((left, right) => left.seq - right.seq);
  const keptFailures =
    fitList(failures, caps.maxFailures, (failure) => failure.seq >= end) ??
    fitList(failures, caps.maxFailures, (failure) => !requiredFailures.has(`${failure.seq} ${failure.what}`)) ??
    state.failures;

  const requiredFiles = new Set(required.changedFiles.map((file) => file.path));
  const addedFiles = required.changedFiles.filter((file) => !changedFileCovered(checkpoint, file));
  const files = [...state.changedFiles, ...addedFiles].sort((left, right) =>
    left.path < right.path ? -1 : left.path > right.path ? 1 : 0,
  );
  const keptFiles = fitList(files, caps.maxChangedFiles, (file) => !requiredFiles.has(file.path)) ?? state.changedFiles;

  const repaired = {
    ...checkpoint,
    state: {
      ...state,
      ...(earlier.length === 0 ? {} : { earlierRequests: earlier }),
      failures: keptFailures,
      changedFiles: keptFiles,
    },
    memory: { ...memory, constraints: keptConstraints },
  } as ContextCheckpoint;
  return { checkpoint: repaired, unrepaired: missingOf(repaired, required) };
}
