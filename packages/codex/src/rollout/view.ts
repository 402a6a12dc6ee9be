import { truncateText } from '@forge/core/checkpoint';
import type { CodexImportState, FailureRecord, FileArtifact } from './import-state.js';

/** Limits of the rendered view. Same state and caps → same bytes. */
export interface ImportViewCaps {
  readonly maxRecentArtifacts: number;
  readonly maxCommands: number;
  readonly maxFailures: number;
  readonly maxCompactions: number;
  readonly maxValueChars: number;
  /** Hex characters of a hash shown. */
  readonly hashChars: number;
}

export const defaultImportViewCaps: ImportViewCaps = {
  maxRecentArtifacts: 16,
  maxCommands: 12,
  maxFailures: 8,
  maxCompactions: 8,
  maxValueChars: 160,
  hashChars: 12,
};

/**
 * Renders the import state as the checkpoint text a model sees after an import. Pure and
 * byte-stable: no clock, no locale, fixed section order, deterministic truncation ("…").
 * Exit codes are labelled historical; files whose current hash is unknown are marked SUSPECT.
 */
export function renderImportView(state: CodexImportState, caps: ImportViewCaps = defaultImportViewCaps): string {
  const clip = (text: string): string => truncateText(text.replace(/\s+/g, ' ').trim(), caps.maxValueChars);
  const lines: string[] = ['[SESSION_CHECKPOINT v1 codex-import]'];
  const source = state.source;
  lines.push(
    `source: codex ${source.cliVersion ?? 'unknown version'}, session ${source.sessionId ?? 'unknown'}, ` +
      `${source.lines} lines (${source.generation} format), rollout sha256:${source.sha256.slice(0, caps.hashChars)}`,
  );
  const notes: string[] = [];
  if (state.skipped.malformedLines > 0) notes.push(`${state.skipped.malformedLines} unreadable lines skipped`);
  if (state.skipped.unknownLines > 0) notes.push(`${state.skipped.unknownLines} lines of unknown types skipped`);
  if (state.skipped.tornTail) notes.push('the last line was cut off');
  if (notes.length > 0) lines.push(`note: ${notes.join('; ')}`);

  lines.push('', '[TASK]');
  lines.push(
    state.task === null
      ? '- (no user message recorded)'
      : `- ${clip(state.task.text)} (evidence=user message, line ${state.task.evidence.line})`,
  );

  const byUri = new Map(state.artifacts.map((artifact) => [artifact.uri, artifact]));
  const recent = state.recentArtifacts.slice(0, caps.maxRecentArtifacts).flatMap((uri) => {
    const artifact = byUri.get(uri);
    return artifact === undefined ? [] : [artifact];
  });
  if (recent.length > 0) {
    lines.push('', '[RECENT_ARTIFACTS]');
    for (const artifact of recent)
      lines.push(`- file: ${clip(artifact.uri)} ${describeArtifact(artifact, caps.hashChars)}`);
  }

  const commands = state.commands.recent.slice(-caps.maxCommands);
  if (commands.length > 0) {
    lines.push(
      '',
      `[COMMANDS] historical results from the recorded session, not the current state (${state.commands.total} total)`,
    );
    for (const command of commands) {
      const outcome =
        command.status === 'declined'
          ? 'declined'
          : command.status === 'no-result'
            ? 'no result'
            : `exit ${String(command.exitCode)}`;
      lines.push(`- ${outcome}: ${clip(command.command)} (line ${command.seq})`);
    }
  }

  const failures = state.failures.recent.slice(-caps.maxFailures);
  if (failures.length > 0) {
    lines.push('', `[FAILURES] (${state.failures.total} total)`);
    for (const failure of failures) lines.push(`- ${describeFailure(failure, clip)} (line ${failure.seq})`);
  }

  const compactions = state.compactions.recent.slice(-caps.maxCompactions);
  if (compactions.length > 0) {
    lines.push('', `[CODEX_COMPACTIONS] engine-owned (${state.compactions.total} total)`);
    for (const compaction of compactions) {
      const detail =
        compaction.kind === 'remote'
          ? `opaque provider item sha256:${compaction.opaqueSha256?.slice(0, caps.hashChars) ?? 'unknown'}`
          : `summary sha256:${compaction.summarySha256?.slice(0, caps.hashChars) ?? 'none'}, ${compaction.summaryChars} chars`;
      lines.push(
        `- line ${compaction.seq}: ${compaction.kind}, after message ${compaction.transcriptIndex}, ${detail}`,
      );
    }
  }

  const latest = state.tokenUsage.latest;
  if (latest !== null) {
    const total = latest.total;
    lines.push('', '[CODEX_TOKEN_USAGE] as Codex reported it');
    lines.push(
      `- session total: input ${total.inputTokens} (cached ${total.cachedInputTokens}), output ${total.outputTokens} ` +
        `(reasoning ${total.reasoningOutputTokens}); window ${latest.modelContextWindow ?? 'unknown'}; ${state.tokenUsage.reports} reports`,
    );
    if (latest.last !== null)
      lines.push(`- last request: input ${latest.last.inputTokens}, output ${latest.last.outputTokens}`);
  }
  return `${lines.join('\n')}\n`;
}

function describeFailure(failure: FailureRecord, clip: (text: string) => string): string {
  if (failure.kind === 'turn') return `the turn was ${clip(failure.why)}`;
  if (failure.kind === 'error') return `Codex reported an error: ${clip(failure.why)}`;
  return `tried ${clip(failure.what)}; failed because ${clip(failure.why)}`;
}

function describeArtifact(artifact: FileArtifact, hashChars: number): string {
  const change = `${artifact.lastChange}, patch ${artifact.lastPatchStatus}`;
  if (artifact.hashStatus === 'current' && artifact.hash !== null) {
    return `(hash=sha256:${artifact.hash.slice(0, hashChars)}; ${change})`;
  }
  if (artifact.hashStatus === 'missing') return `(absent from the workspace now; ${change})`;
  return `(hash unknown: facts about it are SUSPECT; ${change})`;
}
