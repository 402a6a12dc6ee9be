import type { SessionSize } from '@forge/agent';
import { workspaceArtifactHashes } from '@forge/tools';
import { renderContextReport } from '../context/render-context-report.js';
import { loadSessionWindow, type SessionTranscript } from '@forge/persistence';
import { viewOfStoredSession, viewOfStoredWindow } from '@forge/sessions';
import { contextSubjectOf, prepareAgent, recentParts, type AgentSetup } from '../agent/agent-setup.js';
import { measureNextRequest, type ContextSessionView } from '../context/context-report.js';
import { ExitCode } from '../exit-codes.js';
import { calibrationLine } from '../models/calibration-report.js';
import { styleFor } from '../output/style.js';
import { previewStoredCompaction } from '../session/compact-preview.js';
import { chosenSessionId, loadStoredSession } from '../session/open-cli-session.js';
import { sessionChoice } from '../session/session-choice.js';
import { sessionCostSoFar, toSessionCost } from '../session/session-cost.js';
import { resolveSessionSettings, type SessionSettings } from '../session/session-settings.js';
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
    let measured: MeasuredSession | undefined;
    let spent: Awaited<ReturnType<typeof sessionCostSoFar>>;
    if (id !== undefined) {
      measured = await measuredSession(agent, settings, id);
      spent = await sessionCostSoFar(settings.forgeHome, id);
    }
    const report = await measureNextRequest(
      await contextSubjectOf(agent, measured?.size),
      measured?.session,
      spent === undefined ? undefined : toSessionCost(spent),
      measured === undefined
        ? {}
        : {
            previewCompaction: async () => previewStoredCompaction(await measured.whole(), agent, settings.redactor),
          },
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

/** A stored session as `forge context` measures it: its view, what decides its tools, and the whole session when asked for. */
interface MeasuredSession {
  readonly session: ContextSessionView;
  readonly size: SessionSize;
  whole(): Promise<SessionTranscript>;
}

/**
 * The view a turn of the session sends in the configured mode: the checkpoint (mode compact) and
 * every message after it. In mode compact only the checkpoint's window of the log is read when
 * its index gives one; the rest only if the measure needs it.
 */
async function measuredSession(agent: AgentSetup, settings: SessionSettings, id: string): Promise<MeasuredSession> {
  const viewOptions = {
    model: agent.model,
    redact: (text: string) => settings.redactor.redact(text),
    artifactHashes: workspaceArtifactHashes(agent.root),
  };
  const window = agent.context.mode === 'compact' ? await loadSessionWindow(settings.forgeHome, id) : undefined;
  const windowView = window === undefined ? undefined : await viewOfStoredWindow(window, viewOptions);
  if (window !== undefined && windowView !== undefined) {
    const { loaded } = window;
    let whole: SessionTranscript | undefined;
    const read = (): SessionTranscript => (whole ??= window.whole());
    return {
      session: { view: windowView.view, transcript: windowView.messages },
      size: {
        get messages() {
          return read().messages;
        },
        get runs() {
          return read().runs;
        },
        recent: recentParts(loaded),
      },
      whole: () => Promise.resolve(read()),
    };
  }
  const stored = await loadStoredSession(settings, id);
  const { view } = await viewOfStoredSession(stored, { ...viewOptions, mode: agent.context.mode });
  return { session: { view, transcript: stored.messages }, size: stored, whole: () => Promise.resolve(stored) };
}
