import type { SessionSize } from '@forge/agent';
import { workspaceArtifactHashes } from '@forge/tools';
import { renderContextReport } from '../context/render-context-report.js';
import { viewOfStoredSession } from '@forge/sessions';
import { contextSubjectOf, prepareAgent } from '../agent/agent-setup.js';
import { measureNextRequest, type ContextSessionView } from '../context/context-report.js';
import { ExitCode } from '../exit-codes.js';
import { calibrationLine } from '../models/calibration-report.js';
import { styleFor } from '../output/style.js';
import { previewStoredCompaction } from '../session/compact-preview.js';
import { chosenSessionId, loadStoredSession } from '../session/open-cli-session.js';
import { sessionChoice } from '../session/session-choice.js';
import { sessionCostSoFar, toSessionCost } from '../session/session-cost.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import type { ContextOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge context [--json]`: what the next request would cost, measured exactly as a run measures
 * it — the configured model and its window (with the window's source), the budget by category,
 * the reserve, the messages sent verbatim, free space, whether the next step would compact, and
 * how the count was made. With `--resume <id>` or `--last` the history is that session's view in
 * the configured mode, and the session's cost so far is read from its running totals; otherwise it is a
 * new conversation. For a model with prices, the next request's cost with a cold and a warm cache.
 * Sends nothing to any provider and writes nothing.
 */
export async function execute({ options, io }: CommandInvocation<ContextOptions>): Promise<number> {
  const choice = sessionChoice(options);
  const agent = await prepareAgent({ io, globals: options, purpose: 'measure' });
  try {
    const settings = await resolveSessionSettings({ io, globals: options });
    const id =
      choice.kind === 'resume' || choice.kind === 'last'
        ? await chosenSessionId(choice, settings, agent.root)
        : undefined;
    let session: ContextSessionView | undefined;
    let size: SessionSize | undefined;
    let spent: Awaited<ReturnType<typeof sessionCostSoFar>>;
    let stored: Awaited<ReturnType<typeof loadStoredSession>> | undefined;
    if (id !== undefined) {
      stored = await loadStoredSession(settings, id);
      // The same view a turn sends in this mode: the checkpoint (mode compact) and every message after it.
      const { view } = await viewOfStoredSession(stored, {
        mode: agent.context.mode,
        model: agent.model,
        redact: (text) => settings.redactor.redact(text),
        artifactHashes: workspaceArtifactHashes(agent.root),
      });
      session = { view, transcript: stored.messages };
      size = stored;
      spent = await sessionCostSoFar(settings.forgeHome, id);
    }
    const report = await measureNextRequest(
      await contextSubjectOf(agent, size),
      session,
      spent === undefined ? undefined : toSessionCost(spent),
      stored === undefined
        ? {}
        : { previewCompaction: () => previewStoredCompaction(stored, agent, settings.redactor) },
    );
    const calibration = await agent.calibrationOf(agent.modelName);
    if (options.json === true)
      io.stdout.write(`${JSON.stringify(calibration === undefined ? report : { ...report, calibration })}\n`);
    else {
      io.stdout.write(renderContextReport(report, { color: styleFor(io.stdout, io.env).enabled }));
      if (calibration !== undefined) io.stdout.write(`  Calibration      ${calibrationLine(calibration)}\n`);
    }
    return ExitCode.ok;
  } finally {
    await agent.mcp?.close();
  }
}
