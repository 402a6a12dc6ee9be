import { terminalLine } from '@forge/core/terminal';
import type { RunResult } from '@forge/core';
import type { ReplOptions } from '../program.js';
import { loadCliConfig } from '../config/cli-config.js';
import { prepareEngine } from '../engines/prepare-engine.js';
import type { SessionEngineResult } from '@forge/sessions';
import type { TurnEngine } from '../engines/turn-engine.js';
import { ExitCode, exitCodeForSignal } from '../exit-codes.js';
import { defaultModelNotice } from '../models/resolve-model.js';
import type { CliIo, TerminationSignal } from '../io.js';
import { createTextRenderer } from '../output/event-renderer.js';
import { createSpinner, type Spinner } from '../output/spinner.js';
import { createStallWatch, type StallWatch } from '../output/stall-watch.js';
import { styleFor, type Style } from '../output/style.js';
import { wrapText } from '../output/text-width.js';
import { sessionChoice } from '../session/session-choice.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import { forgeVersion } from '../version.js';
import { askApproval } from './approval-prompt.js';
import { askElicitation } from './elicitation-prompt.js';
import { previewEdit } from './edit-preview.js';
import { InterruptPolicy } from './interrupt-policy.js';
import { createLineReader, type LineReader } from './line-reader.js';
import { MultilineInput } from './multiline-input.js';
import { ReplSession } from './repl-session.js';
import { describeSwitch, priceNextRequest, refreshContextUse } from './session-slash-commands.js';
import { closestMatch } from '../suggest.js';
import { describeExpansion, expandMcpReferences, mcpServerNames, parsePromptCommand } from '../mcp/mcp-references.js';
import { sessionCostSoFar } from '../session/session-cost.js';
import { completeSlashCommand, findSlashCommand, slashCommands, type ReplContext } from './slash-commands.js';
import { modelSwitchNote } from '../session/model-switch-note.js';
import { ContextUseTracker, renderStatusLine } from './status-line.js';

const PROMPT = '› ';
const CONTINUATION_PROMPT = '… ';

/**
 * The interactive REPL: reads inputs, runs each as a turn of a stored session (a new one, or the
 * one `--resume`/`--last` names; the recent view of its transcript is the history of each turn),
 * prompts for approvals, and handles Ctrl-C. The session stays locked while the REPL runs.
 * Returns the exit code once the user leaves (`/exit`, Ctrl-D, or Ctrl-C twice at the prompt).
 */
export async function startRepl(options: { readonly io: CliIo; readonly globals: ReplOptions }): Promise<number> {
  const { io } = options;
  const style = styleFor(io.stdout, io.env);
  const print = (text: string) => io.stdout.write(text);
  const live = io.stdout.isTTY === true && io.env.TERM !== 'dumb';
  const spinner = createSpinner(io.stdout, { enabled: live, style });
  const stall = createStallWatch(io.stdout, { enabled: live, style });
  const renderer = createTextRenderer({
    text: io.stdout,
    activity: io.stdout,
    style,
    beforeWrite: () => {
      spinner.stop();
      stall.erase();
    },
    onText: (shown) => stall.text(shown),
  });
  let reader: LineReader | undefined;
  let root: string | undefined;
  let runSignal: AbortSignal | undefined;
  const engine = await prepareEngine({
    io,
    globals: options.globals,
    confirm: async (request, signal) => {
      if (reader === undefined) return { kind: 'deny', feedback: 'nobody is there to answer' };
      spinner.stop();
      renderer.finishRun();
      const preview = root === undefined ? undefined : await previewEdit(request, root, style);
      const answer = await askApproval({
        request,
        signal,
        reader,
        style,
        print,
        ...(preview === undefined ? {} : { preview }),
      });
      if (answer.kind !== 'deny') spinner.start(`running ${request.toolName}`);
      return answer;
    },
    elicit: async (request) => {
      // Only a tool call of a running turn may ask; between turns the prompt belongs to the user.
      if (reader === undefined || runSignal === undefined || runSignal.aborted) return { action: 'decline' };
      spinner.stop();
      renderer.finishRun();
      const answer = await askElicitation({
        request,
        reader,
        style,
        print,
        signal: runSignal,
      });
      spinner.start('waiting for the MCP server');
      return answer;
    },
  });
  root = engine.root;

  try {
    return await runRepl({
      io,
      globals: options.globals,
      engine,
      style,
      spinner,
      stall,
      renderer,
      setReader: (next) => (reader = next),
      setRunSignal: (signal) => (runSignal = signal),
    });
  } finally {
    await engine.close();
  }
}

interface ReplRunOptions {
  readonly io: CliIo;
  readonly globals: ReplOptions;
  readonly engine: TurnEngine;
  readonly style: Style;
  readonly spinner: Spinner;
  readonly stall: StallWatch;
  readonly renderer: ReturnType<typeof createTextRenderer>;
  readonly setReader: (reader: LineReader) => void;
  /** Told the signal of each turn as it starts, so a prompt asked during the turn ends with it. */
  readonly setRunSignal: (signal: AbortSignal | undefined) => void;
}

/** What the loop and the Ctrl-C/termination handlers share: the running turn and the signal that ended the REPL. */
interface ReplRunState {
  activeRun: AbortController | undefined;
  endedBy: TerminationSignal | undefined;
}

type OpenedRepl = Awaited<ReturnType<typeof openRepl>>;

async function runRepl(options: ReplRunOptions): Promise<number> {
  const opened = await openRepl(options);
  const { io, engine, spinner } = options;
  const { session, context } = opened;
  const activeReader = createLineReader({
    input: io.stdin,
    output: io.stdout,
    completer: (line: string) => completeSlashCommand(line, context),
    continuationPrompt: CONTINUATION_PROMPT,
  });
  options.setReader(activeReader);
  const input = new MultilineInput();
  const state: ReplRunState = { activeRun: undefined, endedBy: undefined };
  const watching = watchInterrupts({ options, context, reader: activeReader, input, state });

  await printGreeting(options, opened);
  try {
    for (;;) {
      if (!input.pending) context.print(opened.footer());
      const line = await activeReader.next(input.pending ? CONTINUATION_PROMPT : PROMPT, { remember: false });
      if (line === undefined || state.endedBy !== undefined) break;
      watching.interrupts.reset();
      const text = input.push(line);
      if (text === undefined || text.trim().length === 0) continue;
      activeReader.remember(input.lastTyped);
      const isPrompt = parsePromptCommand(text, mcpServerNames(engine.mcp)) !== undefined;
      if (text.trimStart().startsWith('/') && !isPrompt) {
        if ((await runSlashCommandInSession(text, opened)) === 'exit') break;
        continue;
      }
      await runRequest(text, options, opened, state);
    }
  } finally {
    watching.stop();
    spinner.stop();
    activeReader.close();
    await session.close();
  }
  return state.endedBy === undefined ? ExitCode.ok : exitCodeForSignal(state.endedBy);
}

/** Opens the session and builds the context the slash commands and the footer use. */
async function openRepl(options: ReplRunOptions) {
  const { io, engine, style } = options;
  const print = (text: string) => io.stdout.write(text);
  const choice = sessionChoice(options.globals);
  const settings = await resolveSessionSettings({ io, globals: options.globals });
  // Mode compact sends the checkpoint and what follows it: a resumed session reads only that much of its log.
  const window = () => engine.contextMode === 'compact';
  const session = await ReplSession.open({ choice, settings, workspaceRoot: engine.root, window });
  const { config } = (await loadCliConfig({ io, globals: options.globals })).loaded;
  const contextUse = new ContextUseTracker();
  contextUse.costs.start(await sessionCostSoFar(settings.forgeHome, session.id));
  const width = () => (io.stdout.isTTY === true ? Math.max(20, io.stdout.columns ?? 80) : Infinity);
  const context: ReplContext = { engine, style, session, config, contextUse, width, print };
  // The footer is for people at a terminal; piped output stays a plain transcript.
  const footer = () =>
    io.stdout.isTTY === true
      ? renderStatusLine({
          model: engine.modelLabel,
          mode: engine.contextMode,
          use: contextUse.current,
          style,
          costs: contextUse.costs,
          nextInputCost: contextUse.nextInputCost,
        })
      : '';
  return { settings, session, config, contextUse, context, footer };
}

/** Handles Ctrl-C (from the reader and as a signal) and SIGTERM/SIGHUP; `stop` removes the handlers. */
function watchInterrupts(watch: {
  readonly options: ReplRunOptions;
  readonly context: ReplContext;
  readonly reader: LineReader;
  readonly input: MultilineInput;
  readonly state: ReplRunState;
}): { readonly interrupts: InterruptPolicy; readonly stop: () => void } {
  const { options, reader, input, state } = watch;
  const { io, style, spinner } = options;
  const print = watch.context.print;
  const interrupts = new InterruptPolicy();
  const onInterrupt = () => {
    switch (
      interrupts.decide({
        running: state.activeRun !== undefined,
        hasInput: input.pending || reader.partial.length > 0,
      })
    ) {
      case 'cancel-run':
        spinner.stop();
        if (state.activeRun?.signal.aborted === false) print(`\n${style.yellow('Cancelling…')}\n`);
        state.activeRun?.abort();
        return;
      case 'clear-input':
        input.clear();
        reader.clearPartial();
        print(`\n${style.dim('(input discarded)')}\n`);
        reader.reprompt();
        return;
      case 'warn':
        print(`\n${style.dim('(press Ctrl-C again to exit)')}\n`);
        reader.reprompt();
        return;
      case 'exit':
        print('\n');
        reader.close();
        return;
    }
  };
  reader.onInterrupt(onInterrupt);
  const stopSignals = io.onInterrupt(onInterrupt);
  // SIGTERM or SIGHUP (the terminal closed): cancel the running turn, then leave as after /exit.
  const stopTerminations = io.onTerminate((signal) => {
    state.endedBy ??= signal;
    spinner.stop();
    state.activeRun?.abort();
    reader.close();
  });
  return {
    interrupts,
    stop: () => {
      stopSignals();
      stopTerminations();
    },
  };
}

/** The banner, notes about the model, and (for a resumed session) the context use so far. */
async function printGreeting(options: ReplRunOptions, opened: OpenedRepl): Promise<void> {
  const { engine, style } = options;
  const { session, config, context } = opened;
  const { print, width } = context;
  print(banner(engine, style, describeSwitch(session.describe(), session.resumed ? 'Resumed' : 'Started', style)));
  if (engine.name === 'native' && config.model === undefined)
    print(`${style.yellow(wrapText(`Note: ${defaultModelNotice('/model')}`, width()))}\n`);
  if (session.resumed) {
    const switched = modelSwitchNote(session.runModels, engine.modelLabel, '/model');
    if (switched !== undefined) print(`${style.yellow(`Note: ${switched}`)}\n`);
    await refreshContextUse(context);
  }
}

/** Runs a slash command; a command that switched the session restarts the cost and context figures. */
async function runSlashCommandInSession(text: string, opened: OpenedRepl): Promise<'continue' | 'exit'> {
  const { session, context, contextUse, settings } = opened;
  const sessionBefore = session.id;
  if ((await runSlashCommand(text, context)) === 'exit') return 'exit';
  if (session.id !== sessionBefore) {
    contextUse.costs.start(await sessionCostSoFar(settings.forgeHome, session.id));
    await refreshContextUse(context);
  }
  return 'continue';
}

/** Runs one request as a turn, cancellable by Ctrl-C, and prints its warnings and outcome. */
async function runRequest(
  text: string,
  options: ReplRunOptions,
  opened: OpenedRepl,
  state: ReplRunState,
): Promise<void> {
  const { engine, style, spinner, stall, renderer } = options;
  const { session, context, contextUse, settings } = opened;
  const { print } = context;
  // The run starts before the MCP references are resolved, so Ctrl-C also cancels a server that is slow to answer.
  state.activeRun = new AbortController();
  const signal = state.activeRun.signal;
  options.setRunSignal(signal);
  let ended = false;
  try {
    const redact = (raw: string) => settings.redactor.redact(raw);
    const request = await mcpRequest(text, { engine, redact, print, style, signal });
    if (request === undefined) return;
    const turn = await runTurn({
      engine,
      session,
      request,
      signal,
      renderer,
      spinner,
      stall,
      print,
      style,
      contextUse,
    });
    for (const warning of turn.warnings) print(`${style.yellow(`warning: ${terminalLine(warning.message)}`)}\n`);
    print(turnStatus(turn.result, style));
    ended = true;
  } catch (error) {
    print(`${style.red(`error: ${terminalLine(error instanceof Error ? error.message : String(error))}`)}\n`);
  } finally {
    state.activeRun = undefined;
    options.setRunSignal(undefined);
    spinner.stop();
  }
  // Priced once the turn is over, so a Ctrl-C meanwhile is one at the prompt, not a second cancel of the turn.
  if (ended) await priceNextRequest(context);
}

async function runTurn(options: {
  readonly engine: TurnEngine;
  readonly session: ReplSession;
  readonly request: string;
  readonly signal: AbortSignal;
  readonly renderer: ReturnType<typeof createTextRenderer>;
  readonly spinner: Spinner;
  readonly stall: StallWatch;
  readonly print: (text: string) => void;
  readonly style: Style;
  readonly contextUse: ContextUseTracker;
}): Promise<SessionEngineResult> {
  const { engine, renderer, spinner, stall, style, contextUse } = options;
  try {
    return await options.session.runTurn(engine, {
      request: options.request,
      approvals: engine.approvals,
      signal: options.signal,
      onEvent: (envelope) => {
        const { event } = envelope;
        if (event.type === 'model.step.started') spinner.start('thinking');
        if (event.type === 'tool.call.completed') spinner.stop();
        contextUse.observe(event);
        renderer.onEvent(envelope);
        if (event.type !== 'model.text.delta') stall.stop();
        if (event.type === 'tool.call.started') spinner.start(`running ${event.toolName}`);
      },
      onEngineEvent: (envelope) => contextUse.observe(envelope.event),
      onNote: (text) => {
        spinner.stop();
        renderer.finishRun();
        options.print(`${style.dim(`• ${terminalLine(text)}`)}\n`);
        if (engine.name === 'codex') spinner.start('codex is working');
      },
    });
  } finally {
    stall.stop();
    renderer.finishRun();
  }
}

/** The request with its MCP references resolved (see `expandMcpReferences`); undefined after printing why one failed. */
async function mcpRequest(
  text: string,
  options: {
    readonly engine: TurnEngine;
    readonly redact: (text: string) => string;
    readonly print: (text: string) => void;
    readonly style: Style;
    readonly signal: AbortSignal;
  },
): Promise<string | undefined> {
  const { mcp } = options.engine;
  try {
    const expanded = await expandMcpReferences(text, { mcp, redact: options.redact, signal: options.signal });
    for (const line of describeExpansion(expanded)) options.print(`${options.style.dim(`• ${line}`)}\n`);
    return expanded.request;
  } catch (error) {
    if (options.signal.aborted) {
      options.print(`${options.style.yellow('Cancelled.')} ${options.style.dim('Nothing was sent or stored.')}\n`);
      return undefined;
    }
    // The message can quote what a server answered: it never reaches the terminal raw.
    const message = terminalLine(error instanceof Error ? error.message : String(error));
    options.print(`${options.style.red(`error: ${message}`)}\n`);
    return undefined;
  }
}

async function runSlashCommand(text: string, context: ReplContext): Promise<'continue' | 'exit'> {
  const found = findSlashCommand(text);
  if ('unknown' in found) {
    const suggestion = closestMatch(
      found.unknown,
      slashCommands.map((command) => command.name),
    );
    context.print(
      `Unknown command /${found.unknown}.${suggestion === undefined ? '' : ` Did you mean /${suggestion}?`} Type /help to see the commands.\n`,
    );
    return 'continue';
  }
  return found.command.run(context, found.argument);
}

function banner(engine: TurnEngine, style: Style, sessionLines: string): string {
  return (
    `${style.bold(`Forge ${forgeVersion()}`)} ${style.dim(`· ${engine.modelLabel} · approval ${engine.approvals.profile} · ${engine.root}`)}\n` +
    sessionLines +
    `${style.dim('Type a request, /help for commands, Ctrl-D to exit.')}\n`
  );
}

function turnStatus(result: RunResult, style: Style): string {
  switch (result.status) {
    case 'completed':
      return '';
    case 'cancelled':
      return `${style.yellow('Cancelled.')} ${style.dim('Every tool call of the turn has its result; nothing is left half-done in the conversation.')}\n`;
    case 'step_limit':
      return `${style.yellow(`Stopped after ${result.steps} model steps without a final answer.`)} ${style.dim('Start forge with a higher --max-steps or narrow the request.')}\n`;
    case 'limit_reached':
    case 'failed':
      return `${style.red(`The turn ${result.status === 'failed' ? 'failed' : 'stopped at a limit'}: ${terminalLine(result.error?.message ?? result.status)}`)}\n`;
  }
}
