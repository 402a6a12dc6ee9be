import type { JsonObject, JsonValue } from '@forge/core';
import type { ExpandedFixture, ExpandedTurn } from '../fixture/expand.js';
import type { Step } from '../fixture/schema.js';
import {
  applicableConstraint,
  exitCodeOf,
  failureVisible,
  field,
  freshCommandResult,
  knownFact,
  type FactSource,
} from './knowledge.js';
import { agentHabits, type AgentHabits } from './habits.js';
import type { RequestView } from './request-view.js';
import { passageInView, textInView } from './text-in-view.js';

/*
 * The scripted agent. It knows the task (the fixture's steps), never the context: every decision
 * is recomputed from the request it just received. Its progress within a turn is read from the
 * continuation, through the ids it gave its own tool calls (`t<turn>-s<step>-<action>`).
 */

export interface ToolAction {
  readonly kind: 'tool';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: JsonObject;
  /** For a read (or a run made to see an output again): why the agent makes it (it matters when it had seen that before), and which fact or passage it needs. */
  readonly read?: ReadIntent;
}

/** Why the agent reads a file, and the fact it needs from it. */
export interface ReadIntent {
  readonly reason: ReadReason;
  readonly key: string;
}

/**
 * Why the agent reads a file (or runs a command again): the fact it needs is not in the request
 * (`not-in-view`), the request shows it only as SUSPECT (`suspect`), `edit_file` refused an edit
 * until it reads (`edit-refused`), or the verbatim text it needs (the region an edit changes, a
 * passage it is asked to quote) is not in view (`text-not-in-view`).
 */
export type ReadReason = 'not-in-view' | 'suspect' | 'edit-refused' | 'text-not-in-view';

/** A fact the answer states, and where the agent took it from: the harness checks it against the workspace. */
export interface FactUse {
  readonly turn: number;
  readonly key: string;
  readonly value: string;
  readonly source: FactSource;
}

export interface AnswerAction {
  readonly kind: 'answer';
  readonly text: string;
  readonly factsUsed: readonly FactUse[];
}

/** Tool calls the agent makes in one step: any notes first, then at most one call that does the work. */
export interface ToolStepAction {
  readonly kind: 'tools';
  readonly calls: readonly ToolAction[];
}

export type AgentAction = ToolStepAction | AnswerAction;

export const NOTE_TOOL = 'checkpoint_note';
export const REQUEST_COMPACTION_TOOL = 'request_compaction';

/** What the agent knows about itself besides the request: its habits and how full the request it received is. */
export interface AgentSelf {
  readonly habits: AgentHabits;
  /** The request's size as the model's provider counts it, as a share of the window. */
  readonly fill: number;
}

interface CallState {
  readonly input: JsonValue;
  /** Undefined while no result is visible. */
  readonly result?: { readonly failed: boolean; readonly text: string };
}

/**
 * The agent's own calls for `turn` visible in the request, with their results: in the continuation
 * only, for the current turn; anywhere, for an earlier one (its calls sit in the history, and the
 * notes caught up on for it in the continuation).
 */
function ownCalls(view: RequestView, turn: number, anywhere = false): Map<string, CallState> {
  const prefix = `t${turn}-`;
  const calls = new Map<string, CallState>();
  for (const segment of view.segments) {
    if (
      (!anywhere && segment.place !== 'continuation') ||
      segment.toolCallId === undefined ||
      !segment.toolCallId.startsWith(prefix)
    )
      continue;
    if (segment.kind === 'tool-call') calls.set(segment.toolCallId, { input: segment.input ?? null });
    if (segment.kind === 'tool-result') {
      const call = calls.get(segment.toolCallId);
      if (call !== undefined)
        calls.set(segment.toolCallId, { ...call, result: { failed: segment.failed === true, text: segment.text } });
    }
  }
  return calls;
}

/** The turn of the fixture whose user message is the current request. */
export function findTurn(fixture: ExpandedFixture, view: RequestView): ExpandedTurn | undefined {
  return fixture.turns.find((turn) => turn.message === view.currentRequest);
}

function tool(toolCallId: string, toolName: string, input: JsonObject): ToolAction {
  return { kind: 'tool', toolCallId, toolName, input };
}

/** Every `fact:<key>=<value>` in a text, the last value of each key, in order of first appearance. */
function factsIn(text: string): Map<string, string> {
  const facts = new Map<string, string>();
  for (const match of text.matchAll(/fact:([A-Za-z0-9_.-]+)=([A-Za-z0-9_.-]+)/g))
    facts.set(match[1] as string, match[2] as string);
  return facts;
}

function factMarker(key: string, value: string): string {
  return `fact:${key}=${value}`;
}

/**
 * Decides the agent's next step for `turn` from `view` alone (and, for its habits, how full the
 * request is). Without `self` it is the cooperative agent. Notes ride along with the next call
 * that does the work, as the system prompt asks: a note in a step of its own would re-send the
 * whole request for nothing. Only notes due right before the answer take a step of their own.
 */
export function decideNextAction(
  fixture: ExpandedFixture,
  turn: ExpandedTurn,
  view: RequestView,
  self?: AgentSelf,
): AgentAction {
  const habits = self?.habits ?? agentHabits('cooperative', fixture.fixture.id);
  const offered = view.toolNames.has(NOTE_TOOL);
  const notes = (item: string) => offered && habits.notes(item);
  const calls = ownCalls(view, turn.index);
  const pending = offered ? catchUpNotes(fixture, turn, view, notes) : [];
  // With what it still needs from earlier turns noted, their text is no longer needed verbatim.
  const compact = `t${turn.index}-compact`;
  if (
    pending.length > 0 &&
    habits.requestsCompactionAt(turn.index) !== undefined &&
    view.toolNames.has(REQUEST_COMPACTION_TOOL) &&
    !calls.has(compact)
  ) {
    pending.push(
      tool(compact, REQUEST_COMPACTION_TOOL, {
        reason: 'What the earlier turns established is noted; their text is no longer needed verbatim.',
      }),
    );
  }
  for (const note of pending) calls.set(note.toolCallId, { input: note.input });
  for (;;) {
    const action = nextAction({ fixture, turn, view, self, habits, calls, notes });
    if (action.kind === 'tool' && action.toolName === NOTE_TOOL) {
      pending.push(action);
      calls.set(action.toolCallId, { input: action.input });
      continue;
    }
    if (action.kind === 'answer') return pending.length === 0 ? action : { kind: 'tools', calls: pending };
    return { kind: 'tools', calls: [...pending, action] };
  }
}

/** What the agent decides its next step of `turn` from. */
interface TurnDecision {
  readonly fixture: ExpandedFixture;
  readonly turn: ExpandedTurn;
  readonly view: RequestView;
  readonly self: AgentSelf | undefined;
  readonly habits: AgentHabits;
  readonly calls: ReadonlyMap<string, CallState>;
  readonly notes: (item: string) => boolean;
}

function nextAction({ fixture, turn, view, self, habits, calls, notes }: TurnDecision): ToolAction | AnswerAction {
  const t = `t${turn.index}`;
  const constraint = constraintNote(fixture, turn, calls, notes);
  if (constraint !== undefined) return constraint;

  const lines: string[] = [];
  const factsUsed: FactUse[] = [];
  const context: StepContext = { fixture, view, notes, calls, turn: turn.index, lines, factsUsed };
  for (const [index, step] of turn.steps.entries()) {
    const action = stepAction(context, step, `${t}-s${index}`);
    if (action !== undefined) return action;
  }
  // The work of the turn is done: a long request is a good moment to ask for a checkpoint.
  const threshold = habits.requestsCompactionAt(turn.index);
  if (
    threshold !== undefined &&
    self !== undefined &&
    self.fill >= threshold &&
    view.toolNames.has(REQUEST_COMPACTION_TOOL) &&
    !calls.has(`${t}-compact`)
  ) {
    return tool(`${t}-compact`, REQUEST_COMPACTION_TOOL, {
      reason: `The conversation fills about ${Math.round(self.fill * 100)} % of the window and its older turns are done.`,
    });
  }
  return { kind: 'answer', text: lines.length === 0 ? 'Done.' : lines.join('\n'), factsUsed };
}

/** The note of the first constraint `turn`'s user message states that the agent has not noted yet. */
function constraintNote(
  fixture: ExpandedFixture,
  turn: ExpandedTurn,
  calls: ReadonlyMap<string, CallState>,
  notes: (item: string) => boolean,
): ToolAction | undefined {
  for (const id of turn.states) {
    const constraint = fixture.constraints.get(id);
    const callId = `t${turn.index}-c-${id}`;
    if (constraint !== undefined && notes(`constraint:${id}`) && !calls.has(callId)) {
      return tool(callId, NOTE_TOOL, {
        kind: 'constraint',
        text: constraint.text,
        evidence: { source: 'user', quote: constraint.text },
      });
    }
  }
  return undefined;
}

/**
 * The notes the agent would have made in earlier turns had `checkpoint_note` been offered then,
 * and that are still worth making: Forge offers the context tools only once a session is large
 * enough for compaction to matter, and the system prompt then asks to record what is still
 * needed. For each earlier turn whose own calls are still in the request, the note of a visible
 * constraint, fact or failed approach is due when no note of it is visible (no call of that id, no
 * note of that fact with that value, no FACTS_VALID line of it). When the tools were offered from
 * the start, every such note was made when it was due, so this adds nothing.
 */
function catchUpNotes(
  fixture: ExpandedFixture,
  turn: ExpandedTurn,
  view: RequestView,
  notes: (item: string) => boolean,
): ToolAction[] {
  const noted = notedFacts(view);
  const due: ToolAction[] = [];
  for (const earlier of fixture.turns) {
    if (earlier.index >= turn.index) break;
    const calls = ownCalls(view, earlier.index, true);
    const add = (action: ToolAction) => {
      calls.set(action.toolCallId, { input: action.input });
      const fact = action.input['value'];
      if (action.input['kind'] === 'fact' && typeof fact === 'string') {
        if (noted.has(fact)) return;
        noted.add(fact);
      }
      due.push(action);
    };
    const stated = view.segments.some(
      (segment) => segment.kind === 'user' && segment.place === 'history' && segment.text === earlier.message,
    );
    for (
      let note = stated ? constraintNote(fixture, earlier, calls, notes) : undefined;
      note !== undefined;
      note = constraintNote(fixture, earlier, calls, notes)
    )
      add(note);
    for (const [index, step] of earlier.steps.entries()) {
      for (;;) {
        const action = stepAction(
          { fixture, view, notes, calls, turn: earlier.index, lines: [], factsUsed: [] },
          step,
          `t${earlier.index}-s${index}`,
        );
        if (action === undefined || action.toolName !== NOTE_TOOL) break;
        add(action);
      }
    }
  }
  return due;
}

/** The facts (`fact:<key>=<value>`) the request shows as noted: by a `checkpoint_note` call, or on a FACTS_VALID line. */
function notedFacts(view: RequestView): Set<string> {
  const facts = new Set<string>();
  for (const segment of view.segments) {
    const value =
      segment.kind === 'tool-call' && segment.toolName === NOTE_TOOL ? field(segment.input, 'value') : undefined;
    if (typeof value === 'string') facts.add(value);
    if (segment.kind === 'checkpoint' && segment.section === 'FACTS_VALID')
      for (const [key, fact] of factsIn(segment.text)) facts.add(factMarker(key, fact));
  }
  return facts;
}

/** Why a read of `key`'s file is needed now: the request shows the fact only as SUSPECT, or not at all. */
function factReadReason(view: RequestView, key: string): ReadReason {
  const marker = `fact:${key}=`;
  const suspect = view.segments.some(
    (segment) => segment.kind === 'checkpoint' && segment.section === 'FACTS_SUSPECT' && segment.text.includes(marker),
  );
  return suspect ? 'suspect' : 'not-in-view';
}

function readAction(callId: string, path: string, reason: ReadReason, key: string): ToolAction {
  return { ...tool(callId, 'read_file', { path }), read: { reason, key } };
}

/**
 * Why an edit needs a read first, or undefined when it can go ahead: the region it changes must be
 * in view as current text (see text-in-view.ts). Whether the fact is known does not matter: an
 * edit needs the text, so the read is always for the text.
 */
function editReadReason(view: RequestView, step: Extract<Step, { op: 'edit' }>): ReadReason | undefined {
  return textInView(view, step.path, step.old) ? undefined : 'text-not-in-view';
}

function editAction(callId: string, step: Extract<Step, { op: 'edit' }>): ToolAction {
  return tool(callId, 'edit_file', { path: step.path, mode: 'replace', old: step.old, new: step.new });
}

/** The read (or run) that shows a quoted passage's source again. */
function quoteSourceAction(
  fixture: ExpandedFixture,
  step: Extract<Step, { op: 'quote' }>,
  callId: string,
): ToolAction | undefined {
  const read: ReadIntent = { reason: 'text-not-in-view', key: step.id };
  if (step.path !== undefined) return { ...tool(callId, 'read_file', { path: step.path }), read };
  const command = step.command === undefined ? undefined : fixture.commandsById.get(step.command);
  return command === undefined ? undefined : { ...tool(callId, 'run_command', { argv: [...command.argv] }), read };
}

/**
 * What a step is decided from: the agent's own calls of the turn so far, and the answer being
 * built (`lines` and the facts it states), which steps that need no call add to.
 */
interface StepContext {
  readonly fixture: ExpandedFixture;
  readonly view: RequestView;
  readonly notes: (item: string) => boolean;
  readonly calls: ReadonlyMap<string, CallState>;
  readonly turn: number;
  readonly lines: string[];
  readonly factsUsed: FactUse[];
}

type StepOf<Op extends Step['op']> = Extract<Step, { op: Op }>;

function stepAction(context: StepContext, step: Step, prefix: string): ToolAction | undefined {
  switch (step.op) {
    case 'learn':
      return learnStepAction(context, step, prefix);
    case 'edit':
      return editStepAction(context, step, prefix);
    case 'verify':
      return verifyStepAction(context, step, prefix);
    case 'run':
      return runStepAction(context, step, prefix);
    case 'attempt':
      return attemptStepAction(context, step, prefix);
    case 'probe': {
      const constraint = applicableConstraint(context.view, step.topic, context.fixture.constraints.values());
      context.lines.push(`constraint ${step.topic} = ${constraint?.value ?? 'unknown'}`);
      return undefined;
    }
    case 'quote':
      return quoteStepAction(context, step, prefix);
  }
}

function learnStepAction(
  { view, calls, notes, lines, factsUsed, turn }: StepContext,
  step: StepOf<'learn'>,
  prefix: string,
): ToolAction | undefined {
  const known = knownFact(view, step.key);
  const read = calls.get(`${prefix}-read`);
  if (known === undefined) {
    if (read === undefined) return readAction(`${prefix}-read`, step.path, factReadReason(view, step.key), step.key);
    lines.push(`fact ${step.key} = unknown`);
    return undefined;
  }
  if (step.note && read?.result?.failed === false) {
    // Record every fact the read showed, not only the one asked for: later steps may need them.
    for (const [key, value] of factsIn(read.result.text)) {
      if (!notes(`fact:${key}`) || calls.has(`${prefix}-note-${key}`)) continue;
      return tool(`${prefix}-note-${key}`, NOTE_TOOL, {
        kind: 'fact',
        key,
        value: factMarker(key, value),
        dependsOn: [`file:${step.path}`],
        evidence: { source: 'tool-call', toolCallId: `${prefix}-read` },
      });
    }
  }
  if (step.answer) {
    lines.push(`fact ${step.key} = ${known.value}`);
    factsUsed.push({ turn, key: step.key, value: known.value, source: known.source });
  }
  return undefined;
}

function editStepAction(
  { view, calls, notes, lines }: StepContext,
  step: StepOf<'edit'>,
  prefix: string,
): ToolAction | undefined {
  const first = calls.get(`${prefix}-edit`);
  const retry = calls.get(`${prefix}-edit2`);
  if (first === undefined) {
    // It edits only text it can see: when the region is not in view it reads first (once; an edit of text the file does not have fails honestly).
    const reason = editReadReason(view, step);
    if (reason !== undefined && !calls.has(`${prefix}-read`))
      return readAction(`${prefix}-read`, step.path, reason, step.key);
    return editAction(`${prefix}-edit`, step);
  }
  if (first.result?.failed === true && retry === undefined) {
    // The edit tool refused (the file was not read in this process, or changed): read it, then retry once.
    if (!calls.has(`${prefix}-reread`)) return readAction(`${prefix}-reread`, step.path, 'edit-refused', step.key);
    return editAction(`${prefix}-edit2`, step);
  }
  const succeeded = retry === undefined ? first.result?.failed === false : retry.result?.failed === false;
  const value = new RegExp(`fact:${step.key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}=([A-Za-z0-9_.-]+)`).exec(
    step.new,
  )?.[1];
  if (succeeded && value !== undefined && notes(`fact:${step.key}`) && !calls.has(`${prefix}-note`)) {
    return tool(`${prefix}-note`, NOTE_TOOL, {
      kind: 'fact',
      key: step.key,
      value: factMarker(step.key, value),
      dependsOn: [`file:${step.path}`],
      evidence: { source: 'tool-call', toolCallId: retry === undefined ? `${prefix}-edit` : `${prefix}-edit2` },
    });
  }
  lines.push(succeeded ? `edited ${step.path}` : `edit of ${step.path} failed`);
  return undefined;
}

function verifyStepAction(
  { fixture, view, calls, lines }: StepContext,
  step: StepOf<'verify'>,
  prefix: string,
): ToolAction | undefined {
  const command = fixture.commandsById.get(step.command);
  if (command === undefined) return undefined;
  const run = calls.get(`${prefix}-verify`);
  const exitCode = run?.result === undefined ? freshCommandResult(view, command.argv) : exitCodeOf(run.result.text);
  if (exitCode === undefined && run === undefined)
    return tool(`${prefix}-verify`, 'run_command', { argv: [...command.argv] });
  lines.push(`verify ${step.command} = ${exitCode === 0 ? 'passed' : 'failed'}`);
  return undefined;
}

function runStepAction(
  { fixture, calls, lines }: StepContext,
  step: StepOf<'run'>,
  prefix: string,
): ToolAction | undefined {
  const command = fixture.commandsById.get(step.command);
  if (command === undefined) return undefined;
  if (!calls.has(`${prefix}-run`)) return tool(`${prefix}-run`, 'run_command', { argv: [...command.argv] });
  lines.push(`ran ${step.command}`);
  return undefined;
}

function attemptStepAction(
  { fixture, view, calls, notes, lines }: StepContext,
  step: StepOf<'attempt'>,
  prefix: string,
): ToolAction | undefined {
  const approach = fixture.approaches.get(step.approach);
  const command = approach === undefined ? undefined : fixture.commandsById.get(approach.command);
  if (approach === undefined || command === undefined) return undefined;
  const run = calls.get(`${prefix}-attempt`);
  if (run === undefined) {
    if (failureVisible(view, approach)) {
      lines.push(`approach ${approach.id} = skipped (it failed before: ${approach.reason})`);
      return undefined;
    }
    return tool(`${prefix}-attempt`, 'run_command', { argv: [...command.argv] });
  }
  const failed = run.result !== undefined && (run.result.failed || exitCodeOf(run.result.text) !== 0);
  if (
    failed &&
    notes(`approach:${approach.id}`) &&
    run.result?.text.includes(approach.reason) === true &&
    !calls.has(`${prefix}-note`)
  ) {
    return tool(`${prefix}-note`, NOTE_TOOL, {
      kind: 'rejected_approach',
      approach: approach.description,
      reason: approach.reason,
      evidence: { source: 'tool-call', toolCallId: `${prefix}-attempt` },
    });
  }
  lines.push(
    failed
      ? `approach ${approach.id} = tried, failed: ${approach.reason}`
      : `approach ${approach.id} = tried, it worked`,
  );
  return undefined;
}

function quoteStepAction(
  { fixture, view, calls, lines }: StepContext,
  step: StepOf<'quote'>,
  prefix: string,
): ToolAction | undefined {
  if (passageInView(view, step.passage)) {
    lines.push(`passage ${step.id} = ${step.passage}`);
    return undefined;
  }
  const again = `${prefix}-quote`;
  if (!calls.has(again)) return quoteSourceAction(fixture, step, again);
  lines.push(`passage ${step.id} = unknown`);
  return undefined;
}
