import { commandUri, fileUri, type Artifact, type CheckpointState } from '@forge/core';
import { compareStrings } from './import-facts.js';
import type { CodexImportState } from './import-state.js';

/**
 * The import state in the shape of core's host-owned `CheckpointState`, so an imported Codex
 * session can carry a `forge-state` checkpoint: sequence numbers become transcript message
 * indices, files become `file:` artifacts (and changed files when their patch applied), commands
 * become `command:` artifacts with their historical exit codes. Hashes are the importer's own
 * workspace hashes; the rollout's claims are never used. Run ids are null (Codex runs have none).
 */
export function toCheckpointState(state: CodexImportState): CheckpointState {
  const commandArtifacts = new Map<string, number>();
  for (const command of state.commands.recent) commandArtifacts.set(commandUri(command.command), command.messageIndex);
  const artifacts: Artifact[] = [
    ...state.artifacts.map((artifact) => ({ uri: fileUri(artifact.uri), kind: 'file' as const, hash: artifact.hash, lastSeenSeq: artifact.lastMessageIndex })),
    ...[...commandArtifacts].map(([uri, lastSeenSeq]) => ({ uri, kind: 'command' as const, hash: null, lastSeenSeq })),
  ].sort((left, right) => compareStrings(left.uri, right.uri));
  return {
    task: state.task === null ? null : { text: state.task.text, evidence: { source: 'user', messageIndex: state.task.evidence.messageIndex } },
    requests: [],
    artifacts,
    recentArtifacts: state.recentArtifacts.map((uri) => fileUri(uri)),
    commands: state.commands.recent.map((command) => ({
      command: command.command,
      exitCode: command.exitCode,
      signal: null,
      timedOut: false,
      runId: null,
      seq: command.messageIndex,
    })),
    changedFiles: state.artifacts
      .filter((artifact) => artifact.lastPatchStatus === 'applied')
      .map((artifact) => ({ path: artifact.uri, hash: artifact.hash, seq: artifact.lastMessageIndex })),
    failures: state.failures.recent.map((failure) => ({ what: failure.what, why: failure.why, runId: null, seq: failure.messageIndex })),
  };
}
