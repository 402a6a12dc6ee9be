import type { ContextBudget } from '../budget/budget.js';
import { formatMessageRange, formatTokens } from '../budget/messages.js';
import type { ContextPolicy } from '../budget/policy.js';
import { CHECKPOINT_CAPS, type CheckpointCaps } from '../checkpoint/caps.js';
import type { CheckpointTranscriptEntry } from '../checkpoint/host-metadata.js';
import type { ForgeStateCheckpoint } from '../checkpoint/schema.js';
import { validateCheckpoint } from '../checkpoint/validate.js';
import type { Message } from '../messages.js';
import type { ModelAdapter, ModelRequest, TokenEstimate } from '../model/adapter.js';
import { formatDollars } from '../pricing/format.js';
import { summarizeError } from '../run/error-summary.js';
import { budgetOfEstimate } from '../view/request-view.js';
import { buildForgeStateCheckpoint } from '../checkpoint/build.js';
import {
  filesInHand,
  readFilesInHand,
  workingSetLimitsFor,
  type WorkingSetBudget,
  type WorkingSetReader,
  type WorkingSetRenderInput,
} from '../checkpoint/working-set.js';
import { finishCheckpoint, withViewTokens, type BuiltCheckpoint } from './built-checkpoint.js';
import { ensureCoverage } from './coverage-gate.js';
import {
  compactorCost,
  runStrategy,
  type CompactionStrategySetting,
  type CompactorCost,
  type StrategyOutcome,
} from './strategies.js';
import { compactionRequired, type CostGateDecision } from './cost-gate.js';
import { evaluateCompactionGate } from './priced-cost-gate.js';
import type { CompactionEvent, CompactionStrategyName, CompactionTrigger } from './events.js';
import { keptVerbatimTokens } from './projection-plan.js';
import { planCompaction, tailBudgets, TAIL_FLOOR_TOKENS, type CompactionPlan } from './planner.js';

/** The checkpoint a session already has, as far as planning needs it. */
export interface CurrentCheckpointInfo {
  readonly summarizedThrough: number;
  readonly id: string;
}

export interface CompactTranscriptOptions {
  /** The canonical transcript (as stored, redacted), with the run that added each message. */
  readonly transcript: readonly CheckpointTranscriptEntry[];
  /** Messages from here on belong to the running turn and are never summarized; between turns, the transcript's length. */
  readonly protectedFrom: number;
  readonly current?: CurrentCheckpointInfo;
  /** `shadow` builds and validates but never installs. */
  readonly mode: 'shadow' | 'compact';
  readonly trigger: CompactionTrigger;
  readonly strategy: CompactionStrategySetting;
  /** The active model: its estimator and window; its native compaction for `provider-native`. */
  readonly model: ModelAdapter;
  /** Estimates a request; by default the model's own estimator. */
  readonly estimate?: (request: ModelRequest) => Promise<TokenEstimate>;
  readonly policy: ContextPolicy;
  /** The request as it would be sent now; its checkpoint and history are what compaction replaces. */
  readonly request: ModelRequest;
  /** Its estimate, when already known. */
  readonly before?: TokenEstimate;
  readonly caps?: CheckpointCaps;
  /** Applied to every text the checkpoint takes from the transcript. */
  readonly redact: (text: string) => string;
  readonly focus?: string;
  /** The model step this is for; 0 between turns. */
  readonly step: number;
  readonly signal: AbortSignal;
  readonly emit: (event: CompactionEvent) => void;
  /** Prompt-cache reads of the previous step, for the cost gate. */
  readonly cacheReadTokens?: number;
  /** Milliseconds since the conversation's last model request, for the cost gate (a cold cache loses nothing). */
  readonly idleMs?: number;
  /** The checkpoint's text changed since the conversation's last request, for the cost gate (nothing after the stable prefix is cached). */
  readonly checkpointChanged?: boolean;
  readonly tailFloorTokens?: number;
  /** Which user requests a checkpoint keeps: the latest (default) or all, with the constraints stated in them. */
  readonly requests?: 'latest' | 'all';
  /**
   * Keep the files the agent worked on in hand (forge-state checkpoints): the configured budget,
   * of which the compaction gives the working set its share of the target (`workingSetLimitsFor`),
   * and the host's reader of their current text, so the view is sized with the text it will send.
   */
  readonly workingSet?: {
    readonly budget: WorkingSetBudget;
    readonly read: WorkingSetReader;
    readonly redact?: WorkingSetRenderInput['redact'];
  };
  /** Makes a checkpoint durable (validate → persist happens here); throws when it could not. */
  readonly install: (built: BuiltCheckpoint) => Promise<void>;
}

export type CompactTranscriptResult =
  | {
      readonly kind: 'compacted';
      /** False in shadow mode. */
      readonly installed: boolean;
      readonly built: BuiltCheckpoint;
      /** The history to send after the checkpoint. */
      readonly history: readonly Message[];
      readonly tailStart: number;
      readonly strategy: CompactionStrategyName;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      readonly reclaimedTokens: number;
      readonly costGate?: CostGateDecision;
    }
  | {
      readonly kind: 'skipped';
      readonly reason: 'cost_gate' | 'nothing_to_compact' | 'no_savings' | 'reused';
      readonly message: string;
      readonly costGate?: CostGateDecision;
    }
  | { readonly kind: 'failed'; readonly reason: string; readonly message: string }
  | { readonly kind: 'limit'; readonly message: string; readonly budget: ContextBudget };

interface Sizing {
  readonly plan: Extract<CompactionPlan, { kind: 'compact' }>;
  readonly built: BuiltCheckpoint;
  readonly request: ModelRequest;
  readonly estimate: TokenEstimate;
  readonly budget: ContextBudget;
  /** The current text of the files in hand the view was rendered with. */
  readonly files?: WorkingSetRenderInput;
}

function budgetOf(options: CompactTranscriptOptions, estimate: TokenEstimate): ContextBudget {
  return budgetOfEstimate(options.model, options.request, estimate, options.policy);
}

function withCheckpoint(request: ModelRequest, built: BuiltCheckpoint, history: readonly Message[]): ModelRequest {
  const { nativeState: _previous, ...rest } = request;
  return {
    ...rest,
    checkpoint: built.view,
    history,
    ...(built.nativeState === undefined ? {} : { nativeState: built.nativeState }),
  };
}

function historyAfter(options: CompactTranscriptOptions, built: BuiltCheckpoint, tailStart: number): Message[] {
  const start = built.nativeState === undefined ? tailStart : 0;
  return options.transcript.slice(start, options.protectedFrom).map((entry) => entry.message);
}

function limitMessage(budget: ContextBudget, floor: number): string {
  const { instructions, request, toolSchemas, continuation, checkpoint, history, overhead } =
    budget.estimate.categories;
  return (
    `Even with older turns in a checkpoint and the recent tail at its floor (${formatTokens(floor)} tokens), the request needs ` +
    `${formatTokens(budget.estimate.tokens)} tokens but only ${formatTokens(budget.availableInputTokens)} are available for input ` +
    `(instructions ${formatTokens(instructions)}, current request ${formatTokens(request)}, tool schemas ${formatTokens(toolSchemas)}, ` +
    `this run's tool calls and results ${formatTokens(continuation)}, checkpoint ${formatTokens(checkpoint)}, history ${formatTokens(history)}, framing ${formatTokens(overhead)}). ` +
    'Nothing was sent. Start a new session, shorten the request or instructions, or choose a model with a larger window.'
  );
}

/**
 * Chooses the tail. A manual compaction keeps `recentTailTokens` verbatim. An automatic one must
 * bring the request down to its target (`compactTargetTokens`): the tail starts at
 * `recentTailTokens` and is halved, down to the floor, until the request is at or below the
 * target (or, when it must fit, at least fits); the smallest tail is kept when none gets there.
 * Tails are cut with the model adapter's own message counts.
 */
async function size(
  options: CompactTranscriptOptions,
  caps: CheckpointCaps,
  before: TokenEstimate,
): Promise<{ sizing?: Sizing; skip?: Extract<CompactionPlan, { kind: 'skip' }> }> {
  const estimate = options.estimate ?? ((request: ModelRequest) => options.model.estimateRequestTokens(request));
  const floor = options.tailFloorTokens ?? TAIL_FLOOR_TOKENS;
  const manual = options.trigger === 'manual';
  const budgets = manual ? [options.policy.recentTailTokens] : tailBudgets(options.policy.recentTailTokens, floor);
  const messages = options.transcript.map((entry) => entry.message);
  const end = Math.max(0, Math.min(options.protectedFrom, messages.length));
  const summarizedThrough = Math.min(options.current?.summarizedThrough ?? 0, end);
  const messageTokens = await options.model.countMessageTokens(messages.slice(summarizedThrough, end));
  let sizing: Sizing | undefined;
  let skip: Extract<CompactionPlan, { kind: 'skip' }> | undefined;
  const limits =
    options.workingSet === undefined
      ? undefined
      : workingSetLimitsFor(options.workingSet.budget, budgetOf(options, before).compactTargetTokens);
  let files: WorkingSetRenderInput | undefined;
  for (const tailBudgetTokens of budgets) {
    const plan = planCompaction({
      messages,
      protectedFrom: options.protectedFrom,
      tailBudgetTokens,
      messageTokens,
      ...(options.current === undefined ? {} : { summarizedThrough: options.current.summarizedThrough }),
    });
    if (plan.kind === 'skip') {
      skip ??= plan;
      continue;
    }
    if (sizing !== undefined && plan.tailStart === sizing.plan.tailStart) continue;
    const checkpoint = buildForgeStateCheckpoint({
      transcript: options.transcript,
      tailStart: plan.tailStart,
      redact: options.redact,
      caps,
      ...(options.requests === undefined ? {} : { requests: options.requests }),
      ...(limits === undefined ? {} : { workingSet: limits }),
    });
    // The files in hand come from the whole transcript, the same for every tail: read them once.
    if (files === undefined && options.workingSet !== undefined && checkpoint.workingSet !== undefined) {
      files = await readFilesInHand(
        checkpoint.workingSet,
        options.workingSet.read,
        options.workingSet.redact ?? options.redact,
      );
    }
    const unmeasured = finishCheckpoint(checkpoint, caps, undefined, 0, files);
    const request = withCheckpoint(options.request, unmeasured, historyAfter(options, unmeasured, plan.tailStart));
    const sized = await estimate(request);
    const budget = budgetOf(options, sized);
    sizing = {
      plan,
      built: withViewTokens(unmeasured, sized.categories.checkpoint),
      request,
      estimate: sized,
      budget,
      ...(files === undefined ? {} : { files }),
    };
    if (manual) break;
    const smaller = options.trigger !== 'overflow' || sized.tokens < before.tokens;
    const fits = !budget.overBudget && smaller;
    if (fits && sized.tokens <= budget.compactTargetTokens) break;
  }
  return { ...(sizing === undefined ? {} : { sizing }), ...(skip === undefined ? {} : { skip }) };
}

/** Why the gate declined, in the numbers it decided on. */
function declinedMessage(gate: CostGateDecision): string {
  const priced = gate.priced;
  if (priced === undefined) {
    return (
      `compacting would save ~${formatTokens(gate.expectedSavingsTokens)} tokens over ${gate.horizonTurns} requests, ` +
      `not more than it costs (~${formatTokens(gate.costTokens)}: compactor ${formatTokens(gate.compactionTokens)}, cache rewrite ${formatTokens(gate.cacheRewriteTokens)})` +
      (gate.note === undefined ? '' : `; ${gate.note}`)
    );
  }
  return (
    `compacting would save ${formatDollars(priced.savingUsd)} over ${priced.horizonRequests} requests with a ${priced.cache} cache, ` +
    `not more than it costs (${formatDollars(priced.invalidationUsd + priced.compactorUsd + priced.riskAllowanceUsd)}: ` +
    `cached prefix re-priced ${formatDollars(priced.invalidationUsd)}, compactor ${formatDollars(priced.compactorUsd)}, quality-risk allowance ${formatDollars(priced.riskAllowanceUsd)})`
  );
}

/**
 * One compaction of a session transcript, as one transaction: plan the contiguous completed prefix
 * older than the recent tail, sized so the request comes down to its target → (automatic
 * compactions) pass the cost gate, which a required one always passes → build with the chosen
 * strategy, falling back to the deterministic `forge-state` when a compactor or provider fails →
 * the coverage check (repair or refuse, see `ensureCoverage`) → validate → `install` (durable) →
 * only then report the new view. Shadow mode stops before
 * `install`. Every outcome is an event: started, then completed or failed; or skipped.
 * Nothing here changes the transcript; `install` is the only write.
 */
export async function compactTranscript(options: CompactTranscriptOptions): Promise<CompactTranscriptResult> {
  const caps = options.caps ?? CHECKPOINT_CAPS;
  const estimate = options.estimate ?? ((request: ModelRequest) => options.model.estimateRequestTokens(request));
  const before = options.before ?? (await estimate(options.request));
  const { sizing, skip } = await sizeKeepingFilesOnlyIfSmaller(options, caps, before);
  if (sizing === undefined) return skipNothingToCompact(options, before, skip);
  // A required compaction (see compactionRequired) must leave a request that fits.
  if (compactionRequired(options.trigger) && sizing.budget.overBudget) {
    return {
      kind: 'limit',
      message: limitMessage(
        sizing.budget,
        Math.min(options.tailFloorTokens ?? TAIL_FLOOR_TOKENS, options.policy.recentTailTokens),
      ),
      budget: sizing.budget,
    };
  }
  const tailStart = sizing.plan.tailStart;
  const run: CompactionRun = {
    options,
    caps,
    estimate,
    before,
    sizing,
    tailStart,
    sourceRange: { start: 0, end: tailStart },
    strategyName: options.strategy.kind,
    previousCheckpointId: options.current?.id,
  };
  if (options.strategy.kind === 'forge-state' && sizing.estimate.tokens >= before.tokens)
    return noSavings(run, sizing.estimate.tokens);
  const gate = await passCostGate(run);
  if (gate.declined !== undefined) return gate.declined;
  await emitStarted(run, gate.cost);
  const outcome = await runStrategyReportingFailures(run);
  if (outcome.kind === 'failed') return outcome.result;
  const chosen = await coveredAndValid(run, outcome);
  if (chosen.kind === 'failed') return chosen.result;
  return installChosen(run, chosen, gate.costGate);
}

/** One compaction in progress, once its range is sized. */
interface CompactionRun {
  readonly options: CompactTranscriptOptions;
  readonly caps: CheckpointCaps;
  readonly estimate: (request: ModelRequest) => Promise<TokenEstimate>;
  readonly before: TokenEstimate;
  readonly sizing: Sizing;
  readonly tailStart: number;
  readonly sourceRange: { readonly start: number; readonly end: number };
  readonly strategyName: CompactionStrategyName;
  readonly previousCheckpointId: string | undefined;
}

type Failed = { readonly kind: 'failed'; readonly result: CompactTranscriptResult };

/**
 * Files in hand are worth keeping only inside a checkpoint that still makes the request smaller;
 * a small session whose reads are most of what would be summarized compacts without them.
 */
async function sizeKeepingFilesOnlyIfSmaller(
  options: CompactTranscriptOptions,
  caps: CheckpointCaps,
  before: TokenEstimate,
): Promise<{ sizing?: Sizing; skip?: Extract<CompactionPlan, { kind: 'skip' }> }> {
  const sized = await size(options, caps, before);
  if (sized.sizing === undefined || options.workingSet === undefined || sized.sizing.estimate.tokens < before.tokens)
    return sized;
  const { workingSet: _files, ...withoutFiles } = options;
  return size(withoutFiles, caps, before);
}

function skipNothingToCompact(
  options: CompactTranscriptOptions,
  before: TokenEstimate,
  skip: Extract<CompactionPlan, { kind: 'skip' }> | undefined,
): CompactTranscriptResult {
  const plan = skip ?? { reason: 'nothing_to_compact' as const, message: 'there is nothing to compact' };
  options.emit({
    type: 'context.compaction.skipped',
    step: options.step,
    trigger: options.trigger,
    reason: plan.reason,
    message: plan.message,
    tokensBefore: before.tokens,
    ...(options.current === undefined ? {} : { checkpointId: options.current.id }),
  });
  return { kind: 'skipped', reason: plan.reason, message: plan.message };
}

function noSavings(
  { options, before, tailStart, strategyName, sourceRange }: CompactionRun,
  after: number,
): CompactTranscriptResult {
  const message = `a checkpoint of messages ${formatMessageRange(0, tailStart)} would not make the request smaller (~${formatTokens(before.tokens)} → ~${formatTokens(after)} tokens), so none was made`;
  options.emit({
    type: 'context.compaction.skipped',
    step: options.step,
    trigger: options.trigger,
    reason: 'no_savings',
    message,
    strategy: strategyName,
    tokensBefore: before.tokens,
    wouldReclaimTokens: before.tokens - after,
    sourceRange,
  });
  return { kind: 'skipped', reason: 'no_savings', message };
}

/** Automatic compactions pass the cost gate first (a required one always passes); manual ones skip it. */
async function passCostGate(run: CompactionRun): Promise<{
  readonly costGate?: CostGateDecision;
  readonly cost?: CompactorCost;
  readonly declined?: CompactTranscriptResult;
}> {
  const { options, before, sizing, tailStart } = run;
  if (options.trigger === 'manual') return {};
  const cost = await compactorCost(options, tailStart);
  const compactor = options.strategy.kind === 'model-structured' ? options.strategy.compactor : undefined;
  const prices = options.model.capabilities.prices;
  const costGate = evaluateCompactionGate({
    reclaimedTokens: before.tokens - sizing.estimate.tokens,
    afterTokens: sizing.estimate.tokens,
    compactorInputTokens: cost.inputTokens,
    compactorOutputTokens: cost.outputTokens,
    before: before.categories,
    ...(options.cacheReadTokens === undefined ? {} : { cacheReadTokens: options.cacheReadTokens }),
    ...(prices === undefined ? {} : { prices }),
    ...(compactor === undefined ? {} : { compactor: { prices: compactor.capabilities.prices } }),
    ...(options.model.capabilities.promptCache === undefined
      ? {}
      : { promptCache: options.model.capabilities.promptCache }),
    ...(options.idleMs === undefined ? {} : { idleMs: options.idleMs }),
    ...(options.checkpointChanged === true ? { checkpointChanged: true } : {}),
    required: compactionRequired(options.trigger),
  });
  if (costGate.compact) return { costGate, cost };
  const message = declinedMessage(costGate);
  options.emit({
    type: 'context.compaction.skipped',
    step: options.step,
    trigger: options.trigger,
    reason: 'cost_gate',
    message,
    strategy: run.strategyName,
    tokensBefore: before.tokens,
    wouldReclaimTokens: costGate.reclaimedTokens,
    sourceRange: run.sourceRange,
    costGate,
  });
  return { costGate, cost, declined: { kind: 'skipped', reason: 'cost_gate', message, costGate } };
}

async function emitStarted(run: CompactionRun, cost: CompactorCost | undefined): Promise<void> {
  const { options, tailStart } = run;
  const disclosure =
    options.strategy.kind === 'model-structured' ? (cost ?? (await compactorCost(options, tailStart))) : undefined;
  options.emit({
    type: 'context.compaction.started',
    step: options.step,
    trigger: options.trigger,
    strategy: run.strategyName,
    mode: options.mode,
    tokensBefore: run.before.tokens,
    sourceRange: run.sourceRange,
    ...(disclosure?.disclosure === undefined ? {} : { compactor: disclosure.disclosure }),
    ...(options.focus === undefined ? {} : { focus: options.focus }),
  });
}

function requestWith(run: CompactionRun): (built: BuiltCheckpoint) => ModelRequest {
  return (built) => withCheckpoint(run.options.request, built, historyAfter(run.options, built, run.tailStart));
}

/** Builds with the chosen strategy; a strategy that failed and fell back to forge-state is reported as such. */
async function runStrategyReportingFailures(
  run: CompactionRun,
): Promise<Failed | Extract<StrategyOutcome, { kind: 'built' }>> {
  const { options, previousCheckpointId } = run;
  const outcome = await runStrategy(options, {
    base: run.sizing.built.checkpoint as ForgeStateCheckpoint,
    tailStart: run.tailStart,
    caps: run.caps,
    budgetOf: (value) => budgetOf(options, value),
    estimate: run.estimate,
    withCheckpoint: requestWith(run),
  });
  if (outcome.kind === 'failed') {
    options.emit({
      type: 'context.compaction.failed',
      step: options.step,
      trigger: options.trigger,
      strategy: run.strategyName,
      reason: outcome.reason,
      message: outcome.message,
      error: outcome.error,
      fallback: 'none',
      ...(previousCheckpointId === undefined ? {} : { previousCheckpointId }),
    });
    return { kind: 'failed', result: { kind: 'failed', reason: outcome.reason, message: outcome.message } };
  }
  for (const failure of outcome.failures) {
    options.emit({
      type: 'context.compaction.failed',
      step: options.step,
      trigger: options.trigger,
      strategy: failure.strategy,
      reason: failure.reason,
      message: failure.message,
      error: failure.error,
      fallback: 'forge-state',
      ...(previousCheckpointId === undefined ? {} : { previousCheckpointId }),
    });
  }
  return outcome;
}

interface Chosen {
  readonly kind: 'chosen';
  readonly built: BuiltCheckpoint;
  readonly estimate: TokenEstimate;
  readonly fellBack: boolean;
}

/** The checkpoint to install: covered (repaired or refused, see `ensureCoverage`) and valid. */
async function coveredAndValid(
  run: CompactionRun,
  outcome: Extract<StrategyOutcome, { kind: 'built' }>,
): Promise<Failed | Chosen> {
  const { options, sizing, caps, previousCheckpointId } = run;
  const covered = await ensureCoverage(options, {
    chosen: { built: outcome.built ?? sizing.built, estimate: outcome.estimate ?? sizing.estimate },
    ...(outcome.built === undefined ? {} : { fallback: { built: sizing.built, estimate: sizing.estimate } }),
    caps,
    estimate: run.estimate,
    ...(sizing.files === undefined ? {} : { workingSet: sizing.files }),
    withCheckpoint: requestWith(run),
  });
  if (covered.kind === 'refused') {
    options.emit({
      type: 'context.compaction.failed',
      step: options.step,
      trigger: options.trigger,
      strategy: run.strategyName,
      reason: 'coverage',
      message: covered.message,
      error: { code: 'checkpoint_coverage', message: covered.message, isRetryable: false },
      fallback: 'none',
      ...(previousCheckpointId === undefined ? {} : { previousCheckpointId }),
    });
    return { kind: 'failed', result: { kind: 'failed', reason: 'coverage', message: covered.message } };
  }
  const chosen = covered.built;
  const validation = validateCheckpoint(chosen.checkpoint, options.transcript.length, caps);
  if (!validation.ok) {
    const message = `the ${chosen.checkpoint.strategy} checkpoint failed validation: ${validation.errors.slice(0, 3).join('; ')}`;
    options.emit({
      type: 'context.compaction.failed',
      step: options.step,
      trigger: options.trigger,
      strategy: chosen.checkpoint.strategy,
      reason: 'validation',
      message,
      error: { code: 'checkpoint_invalid', message, isRetryable: false },
      fallback: 'none',
      ...(previousCheckpointId === undefined ? {} : { previousCheckpointId }),
    });
    return { kind: 'failed', result: { kind: 'failed', reason: 'validation', message } };
  }
  return {
    kind: 'chosen',
    built: chosen,
    estimate: covered.estimate,
    fellBack: outcome.failures.length > 0 || covered.fellBack,
  };
}

/** Shadow mode stops here; otherwise `install` makes the checkpoint durable before the new view is reported. */
async function installChosen(
  run: CompactionRun,
  { built: chosen, estimate: chosenEstimate, fellBack }: Chosen,
  costGate: CostGateDecision | undefined,
): Promise<CompactTranscriptResult> {
  const { options, before, tailStart, sourceRange } = run;
  const tokensAfter = chosenEstimate.tokens;
  const reclaimedTokens = before.tokens - tokensAfter;
  if (reclaimedTokens <= 0) return noSavings(run, tokensAfter);
  const history = historyAfter(options, chosen, tailStart);
  const facts = {
    built: chosen,
    history,
    tailStart,
    strategy: chosen.checkpoint.strategy,
    tokensBefore: before.tokens,
    tokensAfter,
    reclaimedTokens,
    ...(costGate === undefined ? {} : { costGate }),
  };
  if (options.mode === 'shadow') {
    const message = `shadow mode: a ${chosen.checkpoint.strategy} checkpoint was built and validated but not installed; it would reclaim ~${formatTokens(reclaimedTokens)} tokens`;
    options.emit({
      type: 'context.compaction.skipped',
      step: options.step,
      trigger: options.trigger,
      reason: 'shadow',
      message,
      strategy: chosen.checkpoint.strategy,
      tokensBefore: before.tokens,
      wouldReclaimTokens: reclaimedTokens,
      sourceRange,
      checkpointId: chosen.id,
      checkpointHash: chosen.hash,
      ...(costGate === undefined ? {} : { costGate }),
    });
    return { kind: 'compacted', installed: false, ...facts };
  }
  const stored = await storeChosen(run, chosen);
  if (stored !== undefined) return stored;
  options.emit({
    type: 'context.compaction.completed',
    step: options.step,
    trigger: options.trigger,
    strategy: chosen.checkpoint.strategy,
    mode: options.mode,
    installed: true,
    reused: false,
    tokensBefore: before.tokens,
    tokensAfter,
    reclaimedTokens,
    sourceRange,
    tailStart,
    checkpointId: chosen.id,
    checkpointHash: chosen.hash,
    viewTokens: chosenEstimate.categories.checkpoint,
    keptVerbatimTokens: keptVerbatimTokens(chosenEstimate),
    ...(chosen.checkpoint.strategy === 'forge-state' && chosen.checkpoint.workingSet !== undefined
      ? { filesInHand: filesInHand(chosen.checkpoint.workingSet) }
      : {}),
    ...(fellBack ? { fallbackFrom: options.strategy.kind } : {}),
    ...(costGate === undefined ? {} : { costGate }),
    ...(options.focus === undefined ? {} : { focus: options.focus }),
  });
  return { kind: 'compacted', installed: true, ...facts };
}

/** Installs the checkpoint; the failure result when it could not be stored, else undefined. */
async function storeChosen(run: CompactionRun, chosen: BuiltCheckpoint): Promise<CompactTranscriptResult | undefined> {
  const { options, previousCheckpointId } = run;
  try {
    await options.install(chosen);
    return undefined;
  } catch (error) {
    const summary = summarizeError(error);
    const message = `the checkpoint could not be stored, so the previous one stays current: ${summary.message}`;
    options.emit({
      type: 'context.compaction.failed',
      step: options.step,
      trigger: options.trigger,
      strategy: chosen.checkpoint.strategy,
      reason: 'persistence',
      message,
      error: summary,
      fallback: 'none',
      ...(previousCheckpointId === undefined ? {} : { previousCheckpointId }),
    });
    return { kind: 'failed', reason: 'persistence', message };
  }
}
