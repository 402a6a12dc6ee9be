import { truncateWithoutClaims } from './authority-text.js';
import type { CheckpointCaps } from './caps.js';
import type { Artifact, CheckpointState, ChangedFile, CommandRecord, FailureRecord, TaskPointer } from './schema.js';
import type { TranscriptObserver } from './transcript-observer.js';
import { lastItems, oneLine } from './text.js';
import { earlierRequests } from './user-requests.js';

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * The host-owned part of a checkpoint, from everything `observer` saw. Text that came from the
 * transcript (task, commands, failure reasons) is redacted, loses any sentence that claims an
 * approval, and is cut to the caps. Artifacts over the cap lose the least recently seen first.
 */
export function finishHostState(
  observer: TranscriptObserver,
  caps: CheckpointCaps,
  redact: (text: string) => string,
  requests: 'latest' | 'all' = 'latest',
): CheckpointState {
  const clean = (text: string): string => truncateWithoutClaims(oneLine(redact(text)), caps.maxValueChars);

  let task: TaskPointer | null = null;
  if (observer.latestUserIndex !== null) {
    const text = observer.userMessages.get(observer.latestUserIndex) ?? '';
    task = {
      text: truncateWithoutClaims(redact(text).trim(), caps.maxTaskChars),
      evidence: { source: 'user', messageIndex: observer.latestUserIndex },
    };
  }

  const byRecency = [...observer.artifacts.entries()].sort(([, left], [, right]) => right.order - left.order);
  const keptArtifacts = byRecency.slice(0, caps.maxArtifacts);
  const artifacts: Artifact[] = keptArtifacts
    .map(([uri, artifact]) => ({
      uri: redact(uri),
      kind: artifact.kind,
      hash: artifact.hash,
      lastSeenSeq: artifact.lastSeenSeq,
    }))
    .sort((left, right) => compareText(left.uri, right.uri));
  const recentArtifacts = keptArtifacts.slice(0, caps.maxRecentArtifacts).map(([uri]) => redact(uri));

  const commands: CommandRecord[] = lastItems(observer.commands, caps.maxCommands).map((command) => ({
    ...command,
    command: clean(command.command),
  }));

  const changedFiles: ChangedFile[] = [...observer.changedFiles.entries()]
    .map(([path, change]) => ({ path: redact(path), hash: change.hash, seq: change.seq }))
    .sort((left, right) => right.seq - left.seq || compareText(left.path, right.path))
    .slice(0, caps.maxChangedFiles)
    .sort((left, right) => compareText(left.path, right.path));

  const failures: FailureRecord[] = lastItems(observer.failures, caps.maxFailures).map((failure) => ({
    what: clean(failure.what),
    why: clean(failure.why),
    runId: failure.runId,
    seq: failure.seq,
  }));

  const earlier =
    requests === 'all' ? earlierRequests(observer.userMessages, observer.latestUserIndex, caps, redact) : [];
  return {
    task,
    ...(earlier.length === 0 ? {} : { earlierRequests: earlier }),
    artifacts,
    recentArtifacts,
    commands,
    changedFiles,
    failures,
  };
}
