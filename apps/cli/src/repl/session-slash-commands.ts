import type { Style } from '../output/style.js';
import { COMPACTION_NOT_AVAILABLE, previewCompaction, renderCompactPreview } from '../session/compact-preview.js';
import { renderSessionList } from '../session/session-render.js';
import type { SessionSwitch } from './repl-session.js';
import type { SlashCommand, SlashOutcome } from './slash-commands.js';

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

const compact: SlashCommand = {
  name: 'compact',
  arguments: '--dry-run',
  summary: 'preview what compaction would summarize and keep (no model call, nothing written)',
  run(context, argument): SlashOutcome {
    if (argument !== '--dry-run') {
      context.print(`${context.style.yellow(`/compact: ${COMPACTION_NOT_AVAILABLE}`)}\n`);
      return 'continue';
    }
    const { settings } = context.session;
    const report = previewCompaction({
      sessionId: context.session.id,
      messages: context.session.messages,
      summarizedThrough: context.session.summarizedThrough,
      recentTailTokens: settings.recentTailTokens,
      summaryTargetTokens: settings.summaryTargetTokens,
    });
    context.print(renderCompactPreview(report, context.style));
    return 'continue';
  },
};

/** The session commands of the REPL, in the order /help lists them. */
export const sessionSlashCommands: readonly SlashCommand[] = [sessions, resume, startNew, compact];
