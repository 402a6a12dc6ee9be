import type { Style } from '../output/style.js';
import { renderContextReport, type ContextPolicy, type ModelAdapter, type ToolDefinition } from '@forge/core';
import { loadInstructions, workspaceArtifactHashes } from '@forge/tools';
import { measureNextRequest } from '../context/context-report.js';
import { SYSTEM_PROMPT } from '../agent/system-prompt.js';
import { compactPreviewReport, renderCompactPreview } from '../session/compact-preview.js';
import { checkpointViewTokens, compactorDisclosure, disclosureLine, estimationOnlyModel, renderCheckpoint, renderCompaction } from '../session/compaction-output.js';
import { renderSessionList } from '../session/session-render.js';
import type { SessionSwitch } from './repl-session.js';
import type { ReplContext, SlashCommand, SlashOutcome } from './slash-commands.js';

const LISTED_SESSIONS = 20;

/** The lines printed after the REPL enters a session (at start, `/resume`, `/new`). */
export function describeSwitch(change: SessionSwitch, verb: string, style: Style): string {
  const lines = [style.dim(`${verb} session ${change.id}${change.messages === 0 ? '' : ` (${change.messages} messages)`}`)];
  if (change.otherWorkspace !== undefined) {
    lines.push(style.yellow(`This session was recorded in ${change.otherWorkspace}; tools now work in this REPL's workspace.`));
  }
  for (const warning of change.warnings) lines.push(style.yellow(`warning: ${warning.message}`));
  return `${lines.join('\n')}\n`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const sessions: SlashCommand = {
  name: 'sessions',
  summary: 'list stored sessions (* marks this one)',
  async run(context): Promise<SlashOutcome> {
    const all = await context.session.list();
    const shown = all.slice(0, LISTED_SESSIONS);
    context.print(renderSessionList(shown, { style: context.style, current: context.session.id }));
    if (all.length > shown.length) context.print(context.style.dim(`(${all.length - shown.length} older sessions: forge sessions list shows all)\n`));
    return 'continue';
  },
};

const resume: SlashCommand = {
  name: 'resume',
  arguments: '<id>',
  summary: 'continue a stored session (instructions are reloaded)',
  async run(context, argument): Promise<SlashOutcome> {
    if (argument === '') {
      context.print('Say which session: /resume <id>. /sessions lists them.\n');
      return 'continue';
    }
    if (argument === context.session.id) {
      context.print(`Already in session ${argument}.\n`);
      return 'continue';
    }
    try {
      context.print(describeSwitch(await context.session.resume(argument), 'Resumed', context.style));
    } catch (error) {
      context.print(`${context.style.red(`error: ${errorText(error)}`)}\n`);
    }
    return 'continue';
  },
};

const startNew: SlashCommand = {
  name: 'new',
  summary: 'start a new session (the current one stays stored)',
  async run(context): Promise<SlashOutcome> {
    try {
      context.print(describeSwitch(await context.session.startNew(), 'Started', context.style));
    } catch (error) {
      context.print(`${context.style.red(`error: ${errorText(error)}`)}\n`);
    }
    return 'continue';
  },
};

/**
 * The model whose estimator counts for the REPL's commands, the next turn's policy and the view
 * mode: the native engine's own; for Codex, an estimation-only stand-in and mode compact (the
 * view the Codex engine is given).
 */
function counting(context: ReplContext): { readonly model: ModelAdapter; readonly policy: ContextPolicy; readonly tools: readonly ToolDefinition[] } {
  const subject = context.engine.contextSubject?.();
  if (subject === undefined) return { model: estimationOnlyModel(context.engine.modelLabel), policy: { ...context.config.context, mode: 'compact' }, tools: [] };
  return { model: subject.model, policy: subject.context, tools: subject.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) };
}

const compact: SlashCommand = {
  name: 'compact',
  arguments: '[--dry-run | focus…]',
  summary: 'compact the session now: older turns become a checkpoint (the transcript is kept); --dry-run previews',
  async run(context, argument): Promise<SlashOutcome> {
    const preview = argument === '--dry-run';
    const root = context.engine.root;
    const { model, policy, tools } = counting(context);
    try {
      const summarizedThrough = context.session.summarizedThrough;
      const result = await context.session.compact({
        model,
        instructions: () => loadInstructions({ workspaceRoot: root, systemPrompt: SYSTEM_PROMPT }),
        tools,
        context: policy,
        artifactHashes: workspaceArtifactHashes(root),
        ...(argument === '' || preview ? {} : { focus: argument }),
        ...(preview ? { preview: true } : {}),
        onEvent: (event) => {
          const compactor = compactorDisclosure(event);
          if (compactor !== undefined) context.print(`${disclosureLine(compactor)}\n`);
        },
      });
      if (preview) {
        const report = await compactPreviewReport({ sessionId: context.session.id, messages: context.session.messages, summarizedThrough, recentTailTokens: policy.recentTailTokens, model, result });
        context.print(renderCompactPreview(report, context.style));
        return 'continue';
      }
      context.contextUse.reset();
      context.print(renderCompaction(context.session.id, result, context.style));
    } catch (error) {
      context.print(`${context.style.red(`error: ${errorText(error)}`)}\n`);
    }
    return 'continue';
  },
};

const checkpoint: SlashCommand = {
  name: 'checkpoint',
  summary: 'show the current checkpoint as the model is sent it, whether this mode sends it, and where it came from',
  async run(context): Promise<SlashOutcome> {
    const current = await context.session.checkpoint(workspaceArtifactHashes(context.engine.root));
    const { model } = counting(context);
    const viewTokens = await checkpointViewTokens(model, current?.view);
    const mode = context.engine.contextMode ?? 'compact';
    context.print(
      renderCheckpoint({ sessionId: context.session.id, resolved: current?.resolved, view: current?.view, viewTokens, transcriptMessages: context.session.messages.length, mode }, context.style),
    );
    return 'continue';
  },
};

const contextReport: SlashCommand = {
  name: 'context',
  summary: 'show what the next request would cost: window, budget by category, reserve, free space',
  async run(context): Promise<SlashOutcome> {
    const { engine, style } = context;
    const subject = engine.contextSubject?.();
    if (subject === undefined) {
      const lines = [style.yellow('/context measures requests of the native engine only; Codex builds its own requests.')];
      const wrapper = context.contextUse.wrapperTokens;
      if (wrapper !== undefined) {
        lines.push(`The latest turn sent Forge's active view to Codex: ~${wrapper.toLocaleString('en-US')} tokens (Forge's estimate of its wrapper; Codex's own prompt and tools come on top).`);
      }
      context.print(`${lines.join('\n')}\n`);
      return 'continue';
    }
    try {
      const view = await context.session.nextView(subject.model, subject.context.mode, workspaceArtifactHashes(engine.root));
      const report = await measureNextRequest(subject, { view, transcript: context.session.messages });
      context.print(renderContextReport(report, { color: style.enabled }));
    } catch (error) {
      context.print(`${style.red(`error: ${errorText(error)}`)}\n`);
    }
    return 'continue';
  },
};

/** The session commands of the REPL, in the order /help lists them. */
export const sessionSlashCommands: readonly SlashCommand[] = [sessions, resume, startNew, compact, checkpoint, contextReport];
