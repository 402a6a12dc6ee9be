import {
  compactPreviewReport,
  estimationOnlyModel,
  openCompactionTrace,
  SESSION_CHECKPOINT_OPTIONS,
} from '@forge/sessions';
import { terminalLine } from '@forge/core/terminal';
import type { Style } from '../output/style.js';
import {
  toolDefinitions,
  type ContextPolicy,
  type InstructionSnapshot,
  type ModelAdapter,
  type ToolDefinition,
} from '@forge/core';
import type { ContextReport } from '@forge/core/budget';
import { renderContextReport } from '../context/render-context-report.js';
import { contextToolOffer, createInstructionsLoader, systemPromptFor } from '@forge/agent';
import { workspaceArtifactHashes } from '@forge/tools';
import { measureNextRequest } from '../context/context-report.js';
import { renderCompactPreview } from '../session/compact-preview.js';
import {
  checkpointViewTokens,
  compactorDisclosure,
  disclosureLine,
  renderCheckpoint,
  renderCompaction,
} from '../session/compaction-output.js';
import { renderSessionList } from '../session/session-render.js';
import type { SessionSwitch } from './repl-session.js';
import type { ReplContext, SlashCommand, SlashOutcome } from './slash-commands.js';
import { continueAfterFailure } from './slash-failure.js';

const LISTED_SESSIONS = 20;

/** The lines printed after the REPL enters a session (at start, `/resume`, `/new`). */
export function describeSwitch(change: SessionSwitch, verb: string, style: Style): string {
  const lines = [
    style.dim(`${verb} session ${change.id}${change.messages === 0 ? '' : ` (${change.messages} messages)`}`),
  ];
  if (change.otherWorkspace !== undefined) {
    lines.push(
      style.yellow(`This session was recorded in ${change.otherWorkspace}; tools now work in this REPL's workspace.`),
    );
  }
  for (const warning of change.warnings) lines.push(style.yellow(`warning: ${terminalLine(warning.message)}`));
  if (change.recap.length > 0) lines.push(style.dim('So far:'), ...change.recap.map((line) => `  ${line}`));
  return `${lines.join('\n')}\n`;
}

const sessions: SlashCommand = {
  name: 'sessions',
  summary: 'list stored sessions (* marks this one)',
  async run(context): Promise<SlashOutcome> {
    const all = await context.session.list();
    const shown = all.slice(0, LISTED_SESSIONS);
    context.print(renderSessionList(shown, { style: context.style, current: context.session.id }));
    if (all.length > shown.length)
      context.print(
        context.style.dim(`(${all.length - shown.length} older sessions: forge sessions list shows all)\n`),
      );
    return 'continue';
  },
};

const resume: SlashCommand = {
  name: 'resume',
  arguments: '<id>',
  summary: 'continue a stored session (the id or its start; instructions are reloaded), with a short recap',
  async run(context, argument): Promise<SlashOutcome> {
    if (argument === '') {
      context.print('Say which session: /resume <id> (or the start of the id). /sessions lists them.\n');
      return 'continue';
    }
    return continueAfterFailure(context, async () => {
      const id = await context.session.resolve(argument);
      if (id === context.session.id) context.print(`Already in session ${id}.\n`);
      else context.print(describeSwitch(await context.session.resume(id), 'Resumed', context.style));
    });
  },
};

const startNew: SlashCommand = {
  name: 'new',
  summary: 'start a new session (the current one stays stored)',
  async run(context): Promise<SlashOutcome> {
    return continueAfterFailure(context, async () =>
      context.print(describeSwitch(await context.session.startNew(), 'Started', context.style)),
    );
  },
};

/**
 * The model whose estimator counts for the REPL's commands, the next turn's policy and the view
 * mode: the native engine's own; for Codex, an estimation-only stand-in and mode compact (the
 * view the Codex engine is given).
 */
interface Counting {
  readonly model: ModelAdapter;
  readonly policy: ContextPolicy;
  readonly tools: readonly ToolDefinition[];
  readonly instructions: () => Promise<InstructionSnapshot>;
}

/** What a compaction from the REPL is measured against: the engine's next request when it can say, else a conservative estimate. */
async function counting(context: ReplContext): Promise<Counting> {
  const subject = await context.engine.contextSubject?.(context.session.size);
  if (subject === undefined) {
    const mode = context.engine.contextMode ?? context.config.context.mode;
    const systemPrompt = systemPromptFor(mode, contextToolOffer(mode, context.config.contextTools));
    const warn = (message: string) => context.print(`${context.style.yellow(`warning: ${message}`)}\n`);
    return {
      model: estimationOnlyModel(context.engine.modelLabel),
      policy: { ...context.config.context, mode: 'compact' },
      tools: [],
      instructions: createInstructionsLoader({ root: context.engine.root, warn })(systemPrompt),
    };
  }
  return {
    model: subject.model,
    policy: subject.context,
    tools: toolDefinitions(subject.tools),
    instructions: subject.instructions,
  };
}

const compact: SlashCommand = {
  name: 'compact',
  arguments: '[--dry-run | focus…]',
  summary: 'compact the session now: older turns become a checkpoint (the transcript is kept); --dry-run previews',
  async run(context, argument): Promise<SlashOutcome> {
    const preview = argument === '--dry-run';
    if (!preview && context.engine.compact !== undefined) {
      return continueAfterFailure(context, async () => {
        const outcome = await context.session.compactOnEngine(context.engine);
        context.contextUse.reset();
        context.print(
          outcome.kind === 'compacted'
            ? `Codex compacted its context (thread ${outcome.threadId}, compaction ${outcome.itemId}); engine-owned: Codex decides what it keeps. Forge's checkpoint of the session is unchanged.\n`
            : `${context.style.yellow(`Nothing to compact: ${outcome.reason}.`)}\n`,
        );
      });
    }
    const { settings } = context.session;
    const root = context.engine.root;
    const { model, policy, tools, instructions } = await counting(context);
    return continueAfterFailure(context, async () => {
      const summarizedThrough = context.session.summarizedThrough;
      // A preview installs nothing and writes no trace; the real compaction is traced like a run.
      const compaction = preview ? undefined : await context.engine.sessionCompaction?.();
      const trace = preview
        ? undefined
        : await openCompactionTrace({
            forgeHome: settings.forgeHome,
            sessionId: context.session.id,
            redactor: settings.redactor,
          });
      const result = await context.session
        .compact({
          model,
          instructions,
          tools,
          context: policy,
          compaction: compaction ?? SESSION_CHECKPOINT_OPTIONS,
          artifactHashes: workspaceArtifactHashes(root),
          ...(argument === '' || preview ? {} : { focus: argument }),
          ...(preview ? { preview: true } : {}),
          onEvent: (event) => {
            trace?.listener(event);
            const compactor = compactorDisclosure(event);
            if (compactor !== undefined) context.print(`${disclosureLine(compactor)}\n`);
          },
        })
        .finally(async () => {
          const problem = await trace?.close();
          if (problem !== undefined) context.print(`${context.style.yellow(`warning: ${problem}`)}\n`);
        });
      if (preview) {
        const report = await compactPreviewReport({
          sessionId: context.session.id,
          messages: context.session.messages,
          summarizedThrough,
          recentTailTokens: policy.recentTailTokens,
          model,
          result,
        });
        context.print(renderCompactPreview(report, context.style));
        return;
      }
      await refreshContextUse(context);
      context.print(renderCompaction(context.session.id, result, context.style));
    });
  },
};

const checkpoint: SlashCommand = {
  name: 'checkpoint',
  summary: 'show the current checkpoint as the model is sent it, whether this mode sends it, and where it came from',
  async run(context): Promise<SlashOutcome> {
    const current = await context.session.checkpoint(workspaceArtifactHashes(context.engine.root));
    const { model } = await counting(context);
    const viewTokens = await checkpointViewTokens(model, current?.view);
    const mode = context.engine.contextMode ?? 'compact';
    context.print(
      renderCheckpoint(
        {
          sessionId: context.session.id,
          resolved: current?.resolved,
          view: current?.view,
          viewTokens,
          transcriptMessages: context.session.messageCount,
          mode,
        },
        context.style,
      ),
    );
    return 'continue';
  },
};

/**
 * Measures the next request of the session as `forge context` does; undefined for an engine that
 * builds its own requests (Codex). Its price assumes what the provider still caches of the last
 * request, and a request the next step compacts first is priced as the compaction leaves it.
 */
async function nextRequestReport(context: ReplContext): Promise<ContextReport | undefined> {
  const { engine } = context;
  const subject = await engine.contextSubject?.(context.session.size);
  if (subject === undefined) return undefined;
  const view = await context.session.nextView(
    subject.model,
    subject.context.mode,
    workspaceArtifactHashes(engine.root),
  );
  const transcript = context.session.transcriptFor(view);
  return measureNextRequest(subject, { view, transcript }, context.contextUse.costs.soFar, {
    sharedPrefixTokens: context.contextUse.costs.cachedPrefixTokens,
    previewCompaction: async () => {
      const { model, policy, tools, instructions } = await counting(context);
      return context.session.compact({
        model,
        instructions,
        tools,
        context: policy,
        compaction: SESSION_CHECKPOINT_OPTIONS,
        artifactHashes: workspaceArtifactHashes(engine.root),
        preview: true,
      });
    },
  });
}

/** Prices the next request for the footer, with the figure `/context` would show now; after each turn. */
export async function priceNextRequest(context: ReplContext): Promise<void> {
  try {
    context.contextUse.priced((await nextRequestReport(context))?.nextRequestCost);
  } catch {
    context.contextUse.priced(undefined);
  }
}

/**
 * Sets the footer to what the next request of the current session would use, after something
 * changed it (`/compact`, `/resume`, `/model`). A session with no messages yet shows `context –`.
 */
export async function refreshContextUse(context: ReplContext): Promise<void> {
  // The next request no longer starts like the last one sent, so its warm price is unknown.
  context.contextUse.costs.forgetPrefix();
  try {
    const report = context.session.messageCount === 0 ? undefined : await nextRequestReport(context);
    if (report === undefined) context.contextUse.reset();
    else {
      context.contextUse.measured(report.budget);
      context.contextUse.priced(report.nextRequestCost);
    }
  } catch {
    context.contextUse.reset();
  }
}

const contextReport: SlashCommand = {
  name: 'context',
  summary: 'show what the next request would cost: window, budget by category, reserve, free space',
  async run(context): Promise<SlashOutcome> {
    const { engine, style } = context;
    if (engine.contextSubject === undefined) {
      const lines = [
        style.yellow('/context measures requests of the native engine only; Codex builds its own requests.'),
      ];
      const use = context.contextUse.current;
      if (use?.reportedBy === 'codex') {
        const share =
          use.availableInputTokens === 0 ? 100 : Math.round((use.usedTokens / use.availableInputTokens) * 100);
        const cached =
          use.cachedInputTokens === undefined
            ? ''
            : `, ${use.cachedInputTokens.toLocaleString('en-US')} of its input from the provider's cache`;
        lines.push(
          `Reported by Codex for its latest model call: ${use.usedTokens.toLocaleString('en-US')} tokens of a ${use.availableInputTokens.toLocaleString('en-US')}-token window (${share}%)${cached}. Codex compacts its thread on its own; /compact asks it to now.`,
        );
      }
      const wrapper = context.contextUse.wrapperTokens;
      if (wrapper !== undefined) {
        lines.push(
          `The latest turn sent Codex ~${wrapper.toLocaleString('en-US')} tokens of Forge's own input (Forge's estimate; Codex's own prompt, tools and thread history come on top).`,
        );
      }
      context.print(`${lines.join('\n')}\n`);
      return 'continue';
    }
    return continueAfterFailure(context, async () => {
      const report = await nextRequestReport(context);
      if (report !== undefined) context.print(renderContextReport(report, { color: style.enabled }));
    });
  },
};

/** The session commands of the REPL, in the order /help lists them. */
export const sessionSlashCommands: readonly SlashCommand[] = [
  sessions,
  resume,
  startNew,
  compact,
  checkpoint,
  contextReport,
];
