import {
  CHECKPOINT_CAPS,
  commandUri,
  fileUri,
  truncateWithoutClaims,
  type Artifact,
  type CheckpointCaps,
  type CheckpointState,
} from '@forge/core/checkpoint';
import { compareStrings } from './import-facts.js';
import type { CodexImportState } from './import-state.js';

/**
 * The import state in the shape of core's host-owned `CheckpointState`, within `caps` (the most
 * recent commands, failures and files; values cut and stripped of approval-like claims), so an imported Codex
 * session can carry a `forge-state` checkpoint: sequence numbers become transcript message
 * indices, files become `file:` artifacts (and changed files when their patch applied), commands
 * become `command:` artifacts with their historical exit codes. Hashes are the importer's own
 * workspace hashes; the rollout's claims are never used. Run ids are null (Codex runs have none).
 */
export function toCheckpointState(state: CodexImportState, caps: CheckpointCaps = CHECKPOINT_CAPS): CheckpointState {
  const value = (text: string): string => truncateWithoutClaims(text, caps.maxValueChars);
  // A fact about a call without a result, or an aborted turn, points at the next message; the checkpoint's range ends before it.
  const last = Math.max(0, state.transcript.messages - 1);
  const seqOf = (index: number): number => Math.min(index, last);
  const recentCommands = state.commands.recent.slice(-caps.maxCommands);
  const commandArtifacts = new Map<string, number>();
  for (const command of recentCommands)
    commandArtifacts.set(commandUri(value(command.command)), seqOf(command.messageIndex));
  const files = [...state.artifacts].sort(
    (left, right) => right.lastMessageIndex - left.lastMessageIndex || compareStrings(left.uri, right.uri),
  );
  const keptFiles = files.slice(0, Math.max(0, caps.maxArtifacts - commandArtifacts.size));
  const kept = new Set(keptFiles.map((artifact) => artifact.uri));
  const artifacts: Artifact[] = [
    ...keptFiles.map((artifact) => ({
      uri: fileUri(artifact.uri),
      kind: 'file' as const,
      hash: artifact.hash,
      lastSeenSeq: seqOf(artifact.lastMessageIndex),
    })),
    ...[...commandArtifacts].map(([uri, lastSeenSeq]) => ({ uri, kind: 'command' as const, hash: null, lastSeenSeq })),
  ].sort((left, right) => compareStrings(left.uri, right.uri));
  return {
    task:
      state.task === null
        ? null
        : {
            text: truncateWithoutClaims(state.task.text, caps.maxTaskChars),
            evidence: { source: 'user', messageIndex: state.task.evidence.messageIndex },
          },
    artifacts,
    recentArtifacts: state.recentArtifacts
      .filter((uri) => kept.has(uri))
      .slice(0, caps.maxRecentArtifacts)
      .map((uri) => fileUri(uri)),
    commands: recentCommands.map((command) => ({
      command: value(command.command),
      exitCode: command.exitCode,
      signal: null,
      timedOut: false,
      runId: null,
      seq: seqOf(command.messageIndex),
    })),
    changedFiles: keptFiles
      .filter((artifact) => artifact.lastPatchStatus === 'applied')
      .slice(0, caps.maxChangedFiles)
      .map((artifact) => ({ path: artifact.uri, hash: artifact.hash, seq: seqOf(artifact.lastMessageIndex) }))
      .sort((left, right) => compareStrings(left.path, right.path)),
    failures: state.failures.recent.slice(-caps.maxFailures).map((failure) => ({
      what: value(failure.what),
      why: value(failure.why),
      runId: null,
      seq: seqOf(failure.messageIndex),
    })),
  };
}
