import { toolDefinitions } from '@forge/core';
import { formatMessageRange } from '@forge/core/budget';
import type { Redactor } from '@forge/core/redaction';
import type { SessionTranscript } from '@forge/persistence';
import {
  previewSessionCompaction,
  SESSION_CHECKPOINT_OPTIONS,
  type CompactPreviewReport,
  type PreviewRange,
  type SessionCompactResult,
} from '@forge/sessions';
import { workspaceArtifactHashes } from '@forge/tools';
import type { AgentSetup } from '../agent/agent-setup.js';
import type { Style } from '../output/style.js';

/**
 * The compaction `forge compact` would make of a stored session now, computed the same way with
 * the same model and tools (what the next turn would advertise and load); no lock, no model
 * call, no write. `forge compact --dry-run` reports it; `forge context` prices the request it leaves.
 */
export async function previewStoredCompaction(
  session: SessionTranscript,
  agent: AgentSetup,
  redactor: Redactor,
): Promise<SessionCompactResult> {
  const surface = await agent.surface(session);
  return previewSessionCompaction(session, {
    model: agent.model,
    instructions: agent.instructions(surface),
    tools: toolDefinitions(surface.advertised),
    context: agent.context,
    compaction: SESSION_CHECKPOINT_OPTIONS,
    artifactHashes: workspaceArtifactHashes(agent.root),
    redactor,
  });
}

const number = (value: number) => value.toLocaleString('en-US');

function describeRange(part: PreviewRange): string {
  if (part.messages === 0) return 'none';
  return `messages ${formatMessageRange(part.start, part.end)} (${part.messages} message${part.messages === 1 ? '' : 's'}) · ~${number(part.tokens)} tokens`;
}

/** The human-readable preview. */
export function renderCompactPreview(report: CompactPreviewReport, style: Style): string {
  const { projected } = report;
  const lines = [
    `${style.bold(`Compaction preview for ${report.sessionId}`)} ${style.dim('(dry run: no model call, nothing written)')}`,
    `  transcript         ${report.transcript.messages} messages · ~${number(report.transcript.tokens)} tokens`,
  ];
  if (report.alreadySummarized.messages > 0)
    lines.push(`  already summarized ${describeRange(report.alreadySummarized)}`);
  lines.push(
    `  eligible prefix    ${describeRange(report.eligiblePrefix)}`,
    `  kept verbatim      ${describeRange(report.keptTail)} ${style.dim(`(recent tail budget ${number(report.recentTailTokens)})`)}`,
  );
  if (report.outcome === 'nothing') {
    lines.push(
      `  next request       ~${number(projected.requestTokensBefore)} tokens: nothing to compact (${report.reason ?? 'no savings'})`,
    );
  } else {
    lines.push(
      `  next request       ~${number(projected.requestTokensBefore)} → ~${number(projected.requestTokensAfter)} tokens ` +
        `(checkpoint of ~${number(report.checkpointTokens ?? 0)}) · saves ~${number(projected.savedTokens)}`,
    );
  }
  lines.push(
    style.dim(
      `Counted by ${report.model}'s estimator, as forge compact and forge context count. The full transcript is always kept; a checkpoint only changes what the model is sent in mode compact.`,
    ),
  );
  return `${lines.join('\n')}\n`;
}
