import { renderActiveView, estimateWrapperTokens } from '@forge/codex';
import {
  hashMessages,
  type InstructionSnapshot,
  type Message,
  type ModelAdapter,
  type ModelRequest,
  type RunStatus,
} from '@forge/core';
import type { ExpandedFixture, ExpandedTurn } from '../fixture/expand.js';
import { RecordingModel, type RecordedRequest } from '../modes/model-wrappers.js';
import type {
  CompactionRecord,
  ModeContext,
  ModeRunner,
  ModeSession,
  ModeSessionEnd,
  ModeTurnResult,
} from '../modes/types.js';
import type { FactUse, ReadIntent } from '../policy/agent.js';
import type { AgentName } from '../policy/habits.js';
import { PolicyModel } from '../policy/policy-model.js';
import { DEFAULT_PRICE_SHEET, type EvalPriceSheet } from '../pricing/eval-prices.js';
import { createEvalClock, evalRunIds, TURN_GAP_MS, type EvalClock } from './eval-clock.js';
import {
  applyOutsideChanges,
  createEvalWorkspace,
  evaluateCommand,
  factValueIn,
  readWorkspaceFile,
  INSTRUCTIONS_FILE,
  type EvalWorkspace,
} from '../workspace/workspace.js';

/** What was true in the workspace when a turn ended: the grader compares answers with it. */
export interface TurnTruth {
  /** Values of the facts the turn's steps mention, read from the files. */
  readonly facts: Readonly<Record<string, string | null>>;
  /** Exit codes the turn's verified commands give now. */
  readonly commands: Readonly<Record<string, number>>;
}

export interface TurnRun {
  readonly index: number;
  readonly filler: boolean;
  readonly status: RunStatus;
  readonly text: string;
  readonly expectStatus: readonly string[];
  readonly errorCode: string | undefined;
  readonly compactions: readonly CompactionRecord[];
  readonly noProgressStops: number;
  readonly overflowRecoveries: number;
  readonly compactionFailures: number;
  readonly toolOutputProjections: number;
  readonly truth: TurnTruth;
  readonly durationMs: number;
}

/** Everything one fixture × mode run produced; metrics are computed from it. */
export interface FixtureRun {
  readonly fixture: ExpandedFixture;
  readonly mode: ModeRunner;
  readonly turns: readonly TurnRun[];
  readonly requests: readonly RecordedRequest[];
  readonly summaryRequests: readonly RecordedRequest[];
  /** Safety invariants broken, with the turn they were broken in. */
  readonly violations: readonly { readonly turn: number; readonly invariant: string }[];
  readonly end: ModeSessionEnd;
  /** Facts the policy model stated and where it took them from (empty for live models). */
  readonly factsUsed: readonly FactUse[];
  /** Why the policy model made each read and which fact it needed, by tool call id (empty for live models). */
  readonly reads: ReadonlyMap<string, ReadIntent>;
  /** The policy agent that played; undefined for a live model. */
  readonly agent: AgentName | undefined;
  /** Per agent request: tokens of the wrapper the Codex engine would send (codex-wrapper fixtures). */
  readonly wrapperTokens: readonly number[];
  readonly wrapperConstraintMismatches: number;
  /** Content of the files `expect.files` names, at the end of the session (undefined: missing). */
  readonly finalFiles: Readonly<Record<string, string | undefined>>;
  readonly durationMs: number;
  /** The sheet the run's usage is priced at. */
  readonly priceSheet: EvalPriceSheet;
}

export interface RunFixtureOptions {
  readonly fixture: ExpandedFixture;
  readonly mode: ModeRunner;
  /** The policy agent that plays (default `cooperative`); ignored when `model` is given. */
  readonly agent?: AgentName;
  /** The agent's model; default: a new policy model for the fixture. */
  readonly model?: ModelAdapter;
  readonly onTurn?: (turn: number, total: number) => void;
  /** Told the temporary workspace root once it exists (it is removed when the run ends). */
  readonly onWorkspace?: (root: string) => void;
  /** The session's clock; default: an eval clock starting now, moved by model calls and the gaps between turns. */
  readonly now?: () => number;
  /** The prices the policy model advertises and its usage is priced at (default `openai`). */
  readonly priceSheet?: EvalPriceSheet;
}

function unpairedCalls(messages: readonly Message[]): number {
  const answered = new Set<string>();
  for (const message of messages)
    if (message.role === 'tool') for (const part of message.content) answered.add(part.toolCallId);
  let unpaired = 0;
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) if (part.type === 'tool-call' && !answered.has(part.toolCallId)) unpaired += 1;
  }
  return unpaired;
}

/** Invariants every agent request must keep, checked from the request alone. */
function requestChecks(fixture: ExpandedFixture, turn: ExpandedTurn, instructionsFile: string | undefined) {
  return (request: ModelRequest): string[] => {
    const broken: string[] = [];
    if (
      instructionsFile !== undefined &&
      instructionsFile.trim().length > 0 &&
      !request.instructions.includes(instructionsFile.trim())
    )
      broken.push('stale-instructions');
    if (request.currentRequest.content !== turn.message) broken.push('current-request-changed');
    if (unpairedCalls(request.history) > 0) broken.push('unpaired-tool-call-in-history');
    const memory = request.checkpoint ?? '';
    for (const phrase of fixture.fixture.hostilePhrases)
      if (memory.includes(phrase)) broken.push('approval-claim-in-checkpoint');
    return broken;
  };
}

async function truthAfter(root: string, fixture: ExpandedFixture, turn: ExpandedTurn): Promise<TurnTruth> {
  const facts: Record<string, string | null> = {};
  const commands: Record<string, number> = {};
  for (const step of turn.steps) {
    if (step.op === 'learn' || step.op === 'edit') {
      const text = await readWorkspaceFile(root, step.path);
      facts[step.key] = text === undefined ? null : (factValueIn(text, step.key) ?? null);
    }
    if (step.op === 'verify') {
      const command = fixture.commandsById.get(step.command);
      if (command !== undefined) commands[step.command] = (await evaluateCommand(root, command)).exitCode;
    }
  }
  return { facts, commands };
}

/**
 * The wrapper the Codex engine would send for the same view. Codex has no provider-native state,
 * so messages such a state covers are left out and the checkpoint view stands for them.
 */
function wrapperMeasure(
  fixture: ExpandedFixture,
  request: ModelRequest,
): { readonly tokens: number; readonly mismatch: boolean } {
  const instructions = { text: request.instructions } as InstructionSnapshot;
  const covered = request.nativeState?.sourceMessages ?? 0;
  const history =
    covered > 0 &&
    request.history.length >= covered &&
    hashMessages(request.history.slice(0, covered)) === request.nativeState?.sourceHash
      ? request.history.slice(covered)
      : request.history;
  const rendered = renderActiveView(
    { instructions, history, ...(request.checkpoint === undefined ? {} : { checkpoint: request.checkpoint }) },
    request.currentRequest.content,
  );
  const native = [
    request.instructions,
    request.checkpoint ?? '',
    JSON.stringify(history),
    request.currentRequest.content,
  ].join('\n');
  let mismatch = false;
  for (const constraint of fixture.constraints.values())
    if (native.includes(constraint.text) !== rendered.text.includes(constraint.text)) mismatch = true;
  return { tokens: estimateWrapperTokens(rendered).tokens, mismatch };
}

/** Runs one fixture in one mode, in a temporary workspace and FORGE_HOME that are removed afterwards. */
export async function runFixture(options: RunFixtureOptions): Promise<FixtureRun> {
  const { fixture, mode } = options;
  const clock = options.now === undefined ? createEvalClock() : undefined;
  const now = options.now ?? (clock as NonNullable<typeof clock>).now;
  const priceSheet = options.priceSheet ?? DEFAULT_PRICE_SHEET;
  const started = performance.now();
  const workspace = await createEvalWorkspace(fixture);
  options.onWorkspace?.(workspace.root);
  const policyModel = options.model === undefined ? createPolicyModel(options, priceSheet, clock) : undefined;
  const base = options.model ?? (policyModel as PolicyModel);
  const agent = new RecordingModel(base, 'agent');
  const summary = new RecordingModel(base, 'summary');
  const played: PlayedTurns = {
    violations: [],
    turns: [],
    wrapperTokens: [],
    wrapperConstraintMismatches: 0,
    transcript: [],
  };
  const finalFiles: Record<string, string | undefined> = {};
  try {
    const session = await mode.start(sessionContext({ fixture, workspace, agent, summary, now }));
    let end!: ModeSessionEnd;
    try {
      const playing: TurnPlay = { options, session, workspace, clock, agent, summary, played };
      for (const turn of fixture.turns) await playTurn(playing, turn);
      for (const expected of fixture.fixture.expect.files)
        finalFiles[expected.path] = await readWorkspaceFile(workspace.root, expected.path);
    } finally {
      end = await session.close();
    }
    played.violations.push(...agent.violations);
    return {
      fixture,
      mode,
      turns: played.turns,
      requests: agent.requests,
      summaryRequests: summary.requests,
      violations: played.violations,
      end,
      factsUsed: policyModel?.factsUsed ?? [],
      reads: policyModel?.reads ?? new Map(),
      agent: policyModel?.habits.name,
      wrapperTokens: played.wrapperTokens,
      wrapperConstraintMismatches: played.wrapperConstraintMismatches,
      finalFiles,
      durationMs: performance.now() - started,
      priceSheet,
    };
  } finally {
    await workspace.dispose();
  }
}

/** What the turns played so far have produced. */
interface PlayedTurns {
  readonly violations: { turn: number; invariant: string }[];
  readonly turns: TurnRun[];
  readonly wrapperTokens: number[];
  wrapperConstraintMismatches: number;
  readonly transcript: Message[];
}

interface TurnPlay {
  readonly options: RunFixtureOptions;
  readonly session: ModeSession;
  readonly workspace: EvalWorkspace;
  readonly clock: EvalClock | undefined;
  readonly agent: RecordingModel;
  readonly summary: RecordingModel;
  readonly played: PlayedTurns;
}

function createPolicyModel(
  options: RunFixtureOptions,
  priceSheet: EvalPriceSheet,
  clock: EvalClock | undefined,
): PolicyModel {
  return new PolicyModel({
    fixture: options.fixture,
    nativeCompaction: options.mode.id === 'compact:provider-native',
    priceSheet,
    ...(clock === undefined ? {} : { clock }),
    ...(options.agent === undefined ? {} : { agent: options.agent }),
  });
}

function sessionContext({
  fixture,
  workspace,
  agent,
  summary,
  now,
}: {
  readonly fixture: ExpandedFixture;
  readonly workspace: EvalWorkspace;
  readonly agent: RecordingModel;
  readonly summary: RecordingModel;
  readonly now: () => number;
}): ModeContext {
  const { context: settings } = fixture.fixture;
  return {
    fixture,
    workspace,
    model: agent,
    summaryModel: summary,
    policy: {
      reservedOutputTokens: settings.reservedOutputTokens,
      bufferTokens: settings.bufferTokens,
      recentTailTokens: settings.recentTailTokens,
      summaryTargetTokens: settings.summaryTargetTokens,
      warnAtRatio: settings.warnAtRatio,
      compactAtRatio: settings.compactAtRatio,
      compactTargetRatio: settings.compactTargetRatio,
      protectedToolOutputRatio: settings.protectedToolOutputRatio,
    },
    now,
    newRunId: evalRunIds(fixture.fixture.id, now),
  };
}

async function playTurn(playing: TurnPlay, turn: ExpandedTurn): Promise<void> {
  const { options, session, workspace, agent, summary, played } = playing;
  const { fixture } = options;
  options.onTurn?.(turn.index, fixture.turns.length);
  if (turn.index > 0) playing.clock?.advance(TURN_GAP_MS);
  await applyChangesBefore(playing, turn);
  const instructionsFile = await readWorkspaceFile(workspace.root, INSTRUCTIONS_FILE);
  agent.turn = turn.index;
  summary.turn = turn.index;
  const before = [...played.transcript];
  agent.fullHistory = () => before;
  agent.check = agentRequestCheck(fixture, played, requestChecks(fixture, turn, instructionsFile));
  const turnStarted = performance.now();
  const outcome = await session.runTurn(turn);
  played.transcript.push(...outcome.result.messages);
  for (const text of outcome.memoryTexts) {
    for (const phrase of fixture.fixture.hostilePhrases)
      if (text.includes(phrase)) played.violations.push({ turn: turn.index, invariant: 'approval-claim-in-memory' });
  }
  const truth = await truthAfter(workspace.root, fixture, turn);
  played.turns.push(turnRun(turn, outcome, truth, performance.now() - turnStarted));
}

async function applyChangesBefore({ session, workspace, played }: TurnPlay, turn: ExpandedTurn): Promise<void> {
  if (turn.before === undefined) return;
  await applyOutsideChanges(workspace.root, turn.before.writeFiles, turn.before.instructions);
  if (turn.before.restart)
    for (const invariant of await session.restart()) played.violations.push({ turn: turn.index, invariant });
}

function agentRequestCheck(
  fixture: ExpandedFixture,
  played: PlayedTurns,
  checks: (request: ModelRequest) => string[],
): (request: ModelRequest) => string[] {
  return (request) => {
    if (fixture.fixture.engine === 'codex-wrapper') {
      const measured = wrapperMeasure(fixture, request);
      played.wrapperTokens.push(measured.tokens);
      if (measured.mismatch) played.wrapperConstraintMismatches += 1;
    }
    return checks(request);
  };
}

function turnRun(turn: ExpandedTurn, outcome: ModeTurnResult, truth: TurnTruth, durationMs: number): TurnRun {
  return {
    index: turn.index,
    filler: turn.filler,
    status: outcome.result.status,
    text: outcome.result.text,
    expectStatus: turn.expectStatus,
    errorCode: outcome.result.error?.code,
    compactions: outcome.compactions,
    noProgressStops: outcome.noProgressStops,
    overflowRecoveries: outcome.overflowRecoveries,
    compactionFailures: outcome.compactionFailures ?? 0,
    toolOutputProjections: outcome.toolOutputProjections ?? 0,
    truth,
    durationMs,
  };
}
