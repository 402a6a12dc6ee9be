import { CONTEXT_MODES, type ContextMode } from '@forge/core';
import { refreshContextUse } from './session-slash-commands.js';
import type { SlashCommand, SlashOutcome } from './slash-commands.js';
import { continueAfterFailure } from './slash-failure.js';
import { describeSandbox } from '../agent/command-sandbox.js';
import { modelCatalogue } from '@forge/agent';

const model: SlashCommand = {
  name: 'model',
  arguments: '[provider:id]',
  summary: 'show the model, or switch to another one from the next turn',
  async run(context, argument): Promise<SlashOutcome> {
    const { engine, style } = context;
    if (argument === '') {
      context.print(
        `Model: ${engine.modelLabel}. ${style.dim('Switch with /model provider:id, e.g. /model openai:gpt-5.')}\n`,
      );
      return 'continue';
    }
    if (engine.switchModel === undefined) {
      context.print(
        `${style.yellow('The Codex engine runs the model Codex is configured with; start forge with --engine codex --model codex:<model> to choose it.')}\n`,
      );
      return 'continue';
    }
    const switchModel = engine.switchModel;
    return continueAfterFailure(
      context,
      async () => {
        await switchModel.call(engine, argument);
        await refreshContextUse(context);
        context.print(`Model: ${engine.modelLabel} from the next turn.\n`);
      },
      () => style.dim(`(still ${engine.modelLabel})`),
    );
  },
  complete(context) {
    // The list `forge models list` prints: the capability tables and the configured compatible servers.
    const known = modelCatalogue(context.config.models).map((entry) => entry.id);
    return [
      ...new Set([
        context.engine.modelLabel,
        ...(context.config.model === undefined ? [] : [context.config.model]),
        'scripted:demo',
        ...known,
      ]),
    ];
  },
};

const isMode = (value: string): value is ContextMode => (CONTEXT_MODES as readonly string[]).includes(value);

const mode: SlashCommand = {
  name: 'mode',
  arguments: '[off|warn|shadow|compact]',
  summary: 'show or switch context management from the next turn',
  run(context, argument): SlashOutcome {
    const { engine, style } = context;
    if (engine.contextMode === undefined || engine.setContextMode === undefined) {
      context.print(
        `${style.yellow('The Codex engine manages its own context; Forge only measures what it sends.')}\n`,
      );
      return 'continue';
    }
    if (argument === '') {
      context.print(
        `Context mode: ${engine.contextMode}. ${style.dim(`Switch with /mode ${CONTEXT_MODES.join('|')}.`)}\n`,
      );
      return 'continue';
    }
    if (!isMode(argument)) {
      context.print(
        `${style.yellow(`/mode: "${argument}" is not a context mode; use one of ${CONTEXT_MODES.join(', ')}.`)}\n`,
      );
      return 'continue';
    }
    engine.setContextMode(argument);
    context.print(`Context mode: ${argument} from the next turn.\n`);
    return 'continue';
  },
  complete: () => CONTEXT_MODES,
};

const permissions: SlashCommand = {
  name: 'permissions',
  arguments: '[revoke <tool>]',
  summary: 'list the tools allowed for this session and the sandbox, or revoke one',
  run(context, argument): SlashOutcome {
    const { approvals } = context.engine;
    const { style } = context;
    const revoke = /^revoke(?:\s+(\S+))?$/.exec(argument);
    if (argument !== '' && revoke === null) {
      context.print(`${style.yellow('/permissions takes no argument, or revoke <tool>.')}\n`);
      return 'continue';
    }
    if (revoke !== null) {
      const tool = revoke[1];
      if (tool === undefined) context.print('Say which tool: /permissions revoke <tool>.\n');
      else if (approvals.revoke(tool)) context.print(`Revoked: ${tool} asks again before its next call.\n`);
      else context.print(`${tool} has no session grant. ${style.dim('/permissions lists them.')}\n`);
      return 'continue';
    }
    const grants = approvals.grants();
    const lines = [`Approval profile: ${approvals.profile}.`];
    if (approvals.sandbox !== undefined) lines.push(`Sandbox: ${describeSandbox(approvals.sandbox)}.`);
    const tools = grants.filter((grant) => !grant.includes(':'));
    const escapes = grants.filter((grant) => grant.includes(':'));
    if (grants.length === 0)
      lines.push(style.dim('No tool is allowed for this session yet; answer s at an approval prompt to allow one.'));
    if (tools.length > 0) lines.push('Allowed for this session (no prompt):', ...tools.map((grant) => `  ${grant}`));
    if (escapes.length > 0)
      lines.push('Allowed to leave the sandbox for this session (no prompt):', ...escapes.map((grant) => `  ${grant}`));
    if (grants.length > 0)
      lines.push(style.dim('Withdraw one with /permissions revoke <tool> (or <tool>:network, <tool>:no-sandbox).'));
    context.print(`${lines.join('\n')}\n`);
    return 'continue';
  },
  complete: (context) => ['revoke', ...context.engine.approvals.grants().map((grant) => `revoke ${grant}`)],
};

/** The commands that change how the next turns run, in the order /help lists them. */
export const controlSlashCommands: readonly SlashCommand[] = [model, mode, permissions];
