import { BoundedList } from './bounded-list.js';
import type { CostBreakdown } from '@forge/core/pricing';
import type {
  CompactionRow,
  ContextWindow,
  RunOutcome,
  RunPrices,
  RunReport,
  StepBudget,
  StopRow,
  TokenUsage,
} from './report.js';
import { ToolCallTally } from './tool-call-tally.js';
import type { KnownEvent, ParsedEnvelope } from './report-events.js';
import { addOptionalCost, addTokenUsage, hitRatioOf, usageOf } from './usage-totals.js';

type EventOf<T extends KnownEvent['type']> = Extract<KnownEvent, { readonly type: T }>;

const LISTED_ROWS = 1000;
const UNKNOWN_TYPES = 100;

/** Event types that carry nothing the report shows. */
const IGNORED_TYPES: ReadonlySet<string> = new Set(['model.text.delta']);

interface MutableStep {
  step: number;
  estimatedTokens?: number | undefined;
  categories?: Readonly<Record<string, number>> | undefined;
  confidence?: string | undefined;
  reportedInputTokens?: number | undefined;
  cachedInputTokens?: number | undefined;
  cacheWriteTokens?: number | undefined;
  outputTokens?: number | undefined;
  cost?: CostBreakdown | undefined;
  errorPercent?: number | undefined;
  finishReason?: string | undefined;
  toolCalls?: number | undefined;
  warned: boolean;
  failed?: { code: string; message: string } | undefined;
  estimateCovers?: 'wrapper' | undefined;
}

function isGuardReason(reason: string | undefined): boolean {
  return reason !== undefined && /guard|no[-_ ]progress|attempt/i.test(reason);
}

function durationBetween(start: string | undefined, end: string | undefined): number | undefined {
  if (start === undefined || end === undefined) return undefined;
  const milliseconds = Date.parse(end) - Date.parse(start);
  return Number.isFinite(milliseconds) && milliseconds >= 0 ? milliseconds : undefined;
}

function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** The figures a compaction event may carry, copied into its row when present. */
const COMPACTION_FIGURES = [
  'strategy',
  'reclaimedTokens',
  'tokensBefore',
  'tokensAfter',
  'keptVerbatimTokens',
  'checkpointHash',
  'checkpointId',
  'filesInHand',
] as const;

/** The `keys` of `value` that are defined: a row leaves out what its event did not say. */
function definedFields<Value extends object, Key extends keyof Value>(
  value: Value,
  keys: readonly Key[],
): { [Field in Key]?: Exclude<Value[Field], undefined> } {
  const fields: { [Field in Key]?: Exclude<Value[Field], undefined> } = {};
  for (const key of keys) {
    const field = value[key];
    if (field !== undefined) fields[key] = field as Exclude<Value[Key], undefined>;
  }
  return fields;
}

/**
 * Folds the events of one run, in trace order, into a `RunReport`. Memory grows with the number
 * of steps (one row each) and tools, never with the number of events.
 */
export class RunAggregator {
  private readonly file: string;
  private readonly runId: string;
  private sessionId: string | undefined;
  private engine = 'native';
  private model: { provider: string; modelId: string } | undefined;
  private maxSteps: number | undefined;
  private instructionsHash: string | undefined;
  private advertisedTools: readonly string[] = [];
  private firstTimestamp: string | undefined;
  private lastTimestamp: string | undefined;
  private status: RunOutcome = 'unfinished';
  private endedAt: string | undefined;
  private durationMs: number | undefined;
  private endUsage: TokenUsage | undefined;
  private stepUsage: TokenUsage = {};
  private prices: RunPrices | undefined;
  private endCost: CostBreakdown | undefined;
  private stepCost: CostBreakdown | undefined;
  private endSteps: number | undefined;
  private error: { code: string; message: string } | undefined;
  private window: { -readonly [Key in keyof ContextWindow]: ContextWindow[Key] } | undefined;
  private readonly steps = new Map<number, MutableStep>();
  /** Estimate errors a usage event reported, for steps whose estimate the trace does not hold. */
  private readonly reconciledErrors = new Map<number, number>();
  private currentStep = 0;
  /** Codex reports usage once per model response, without a step number; they are counted here. */
  private codexResponses = 0;
  private stepOpen = false;
  private warnings = 0;
  private estimatorFlagged: string | undefined;
  private readonly compactions = new BoundedList<CompactionRow>(LISTED_ROWS);
  /** Index in `compactions` of a compaction that started and has not ended yet (`unlisted` past the list's limit). */
  private openCompaction: number | 'unlisted' | undefined;
  private readonly stops = new BoundedList<StopRow>(LISTED_ROWS);
  private readonly toolCalls = new ToolCallTally();
  private readonly unknown = new Map<string, number>();
  private events = 0;
  private sawRunStart = false;
  private manualCompaction = false;

  constructor(options: { readonly file: string; readonly runId: string }) {
    this.file = options.file;
    this.runId = options.runId;
  }

  /** Adds one validated line of this run's trace. */
  add(line: ParsedEnvelope): void {
    const { envelope } = line;
    this.events += 1;
    this.sessionId ??= envelope.sessionId;
    this.firstTimestamp ??= envelope.timestamp;
    this.lastTimestamp = envelope.timestamp;
    if (line.known) this.addKnown(line.envelope.event, envelope.timestamp);
    else if (!IGNORED_TYPES.has(envelope.event.type)) this.countUnknown(envelope.event.type);
  }

  private addKnown(event: KnownEvent, timestamp: string): void {
    switch (event.type) {
      case 'run.started':
        return this.onRunStarted(event);
      case 'model.step.started':
        return this.onStepStarted(event.step);
      case 'model.step.completed':
        return this.onStepCompleted(event);
      case 'model.step.failed':
        return this.onStepFailed(event);
      case 'tool.call.started':
        return this.toolCalls.started(event);
      case 'tool.call.completed':
        return this.toolCalls.completed({
          step: event.step,
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          outcome: event.outcome,
          durationMs: event.durationMs,
        });
      case 'run.completed':
      case 'run.failed':
        return this.onRunEnded(event, timestamp);
      case 'context.budgeted':
      case 'codex.context.budgeted':
        return this.onBudgeted(event);
      case 'context.usage.reconciled':
        return this.onReconciled(event);
      case 'context.warning':
        this.warnings += 1;
        this.stepRow(event.step ?? this.pendingStep()).warned = true;
        return;
      case 'context.estimator.flagged':
        this.estimatorFlagged = event.message ?? 'the estimator undercounted beyond the safety buffer too often';
        return;
      case 'codex.usage.recorded':
        return this.onCodexUsage(event);
      case 'codex.compaction.completed':
        this.compactions.push({
          beforeStep: this.pendingStep(),
          outcome: 'completed',
          strategy: 'codex (engine-owned)',
          ...(event.compaction?.itemId === undefined ? {} : { checkpointId: event.compaction.itemId }),
        });
        return;
      case 'context.limit_reached':
        return this.onLimitReached(event);
      case 'context.compaction.started':
        return this.onCompaction('started', event);
      case 'context.compaction.completed':
        return this.onCompaction('completed', event);
      case 'context.compaction.failed':
        return this.onCompaction('failed', event);
      case 'context.checkpoint.coverage':
        return this.onCoverage(event);
      case 'context.compaction.skipped':
        // A manual compaction that changed nothing is worth a row; in-run skips stay counted as other events.
        if (event.trigger === 'manual') return this.onCompaction('skipped', event);
        return this.countUnknown(event.type);
    }
  }

  private countUnknown(type: string): void {
    const key = this.unknown.has(type) || this.unknown.size < UNKNOWN_TYPES ? type : '(other types)';
    this.unknown.set(key, (this.unknown.get(key) ?? 0) + 1);
  }

  private stepRow(step: number): MutableStep {
    let row = this.steps.get(step);
    if (row === undefined) {
      row = { step, warned: false };
      this.steps.set(step, row);
    }
    return row;
  }

  /** The step an event without its own step number belongs to: the open step, else the next one. */
  private pendingStep(): number {
    return this.stepOpen ? this.currentStep : this.currentStep + 1;
  }

  private onRunStarted(value: EventOf<'run.started'>): void {
    this.sawRunStart = true;
    if (value.model !== undefined) this.model = { provider: value.model.provider, modelId: value.model.modelId };
    if (value.engine !== undefined) this.engine = value.engine;
    else if (value.model?.provider === 'codex') this.engine = 'codex';
    // An engine that decides its own number of model calls (Codex) reports 0: no limit Forge set.
    this.maxSteps = value.maxSteps === 0 ? undefined : value.maxSteps;
    this.instructionsHash = value.instructions?.hash;
    this.advertisedTools = value.tools ?? [];
    if (value.prices !== undefined) this.prices = { ...value.prices };
  }

  private onStepStarted(step: number): void {
    this.currentStep = Math.max(this.currentStep, step);
    this.stepOpen = true;
    this.stepRow(step);
  }

  private onStepCompleted(value: EventOf<'model.step.completed'>): void {
    const row = this.stepRow(value.step);
    const usage = usageOf(value.usage);
    this.stepUsage = addTokenUsage(this.stepUsage, usage);
    row.reportedInputTokens = usage.inputTokens ?? row.reportedInputTokens;
    row.cachedInputTokens = usage.cacheReadTokens ?? row.cachedInputTokens;
    row.cacheWriteTokens = usage.cacheWriteTokens ?? row.cacheWriteTokens;
    if (value.cost !== undefined) {
      row.cost = value.cost;
      this.stepCost = addOptionalCost(this.stepCost, value.cost);
    }
    row.outputTokens = usage.outputTokens;
    row.finishReason = value.finishReason;
    row.toolCalls = value.toolCalls;
    this.currentStep = Math.max(this.currentStep, value.step);
    this.stepOpen = false;
  }

  private onStepFailed(value: EventOf<'model.step.failed'>): void {
    this.stepRow(value.step).failed = { code: value.error?.code ?? 'unknown', message: value.error?.message ?? '' };
    this.currentStep = Math.max(this.currentStep, value.step);
    this.stepOpen = false;
  }

  private onRunEnded(value: EventOf<'run.completed' | 'run.failed'>, timestamp: string): void {
    this.status = value.status;
    this.endedAt = timestamp;
    this.durationMs = value.durationMs;
    this.endSteps = value.steps;
    if (value.usage !== undefined) this.endUsage = usageOf(value.usage);
    if (value.cost !== undefined) this.endCost = value.cost;
    if (value.error !== undefined) this.error = { code: value.error.code, message: value.error.message };
    const reason = value.error === undefined ? undefined : `${value.error.message} (${value.error.code})`;
    const step = value.steps;
    const at = step === undefined ? {} : { step };
    switch (value.status) {
      case 'step_limit':
        this.stops.push({
          ...at,
          kind: 'step_limit',
          reason:
            reason ?? `used all ${String(step ?? this.currentStep)} steps it was allowed without giving a final answer`,
        });
        break;
      case 'cancelled':
        this.stops.push({ ...at, kind: 'cancelled', reason: 'cancelled by the user' });
        break;
      case 'failed':
        this.stops.push({ ...at, kind: 'failed', reason: reason ?? 'the run failed' });
        break;
      case 'limit_reached':
        if (!this.stops.items.some((stop) => stop.kind === 'context_limit' || stop.kind === 'guard')) {
          this.stops.push({ ...at, kind: 'context_limit', reason: reason ?? 'stopped at a context limit' });
        }
        break;
      default:
        break;
    }
  }

  private onBudgeted(value: EventOf<'context.budgeted' | 'codex.context.budgeted'>): void {
    const row = this.stepRow(value.step ?? this.pendingStep());
    const categories = value.estimate?.categories ?? value.categories;
    const categorySum =
      categories === undefined ? undefined : Object.values(categories).reduce((sum, tokens) => sum + tokens, 0);
    row.estimatedTokens = value.estimate?.tokens ?? value.estimatedTokens ?? categorySum;
    row.categories = categories;
    row.confidence = value.estimate?.confidence;
    const engine = value.type === 'codex.context.budgeted' ? 'codex' : value.engine;
    if (engine !== undefined && engine !== 'native') {
      this.engine = engine;
      row.estimateCovers = 'wrapper';
    }
    if (value.contextWindowTokens !== undefined) {
      const method = value.estimate?.method;
      this.window = {
        tokens: value.contextWindowTokens,
        ...(value.windowSource === undefined ? {} : { source: value.windowSource }),
        ...(method === undefined ? {} : { estimationMethod: method }),
        ...(value.availableInputTokens === undefined ? {} : { availableInputTokens: value.availableInputTokens }),
        ...(value.mode === undefined ? {} : { mode: value.mode }),
      };
    }
  }

  /** One Codex model response: a step of the run, with the input Codex counted. */
  private onCodexUsage(value: EventOf<'codex.usage.recorded'>): void {
    this.codexResponses += 1;
    const row = this.stepRow(this.codexResponses);
    const { last, modelContextWindow } = value.usage;
    row.reportedInputTokens = last.inputTokens;
    row.cachedInputTokens = last.cachedInputTokens;
    row.outputTokens = last.outputTokens;
    this.currentStep = Math.max(this.currentStep, this.codexResponses);
    if (typeof modelContextWindow === 'number')
      this.window = { ...this.window, tokens: modelContextWindow, source: 'codex' };
  }

  private onReconciled(value: EventOf<'context.usage.reconciled'>): void {
    const row = this.stepRow(value.step ?? this.currentStep);
    row.reportedInputTokens = value.reportedInputTokens ?? row.reportedInputTokens;
    row.cachedInputTokens = value.cacheReadTokens ?? row.cachedInputTokens;
    row.estimatedTokens ??= value.estimatedTokens;
    if (value.errorPercent !== undefined) this.reconciledErrors.set(row.step, value.errorPercent);
  }

  private onLimitReached(value: EventOf<'context.limit_reached'>): void {
    const code = value.reason;
    const message = value.message ?? 'the request would not fit the context window';
    const kind = isGuardReason(code) ? 'guard' : 'context_limit';
    this.stops.push({
      step: value.step ?? this.pendingStep(),
      kind,
      reason: code === undefined || code === message ? message : `${message} (${code})`,
    });
  }

  private onCompaction(
    outcome: CompactionRow['outcome'],
    value: EventOf<
      | 'context.compaction.started'
      | 'context.compaction.completed'
      | 'context.compaction.failed'
      | 'context.compaction.skipped'
    >,
  ): void {
    if (value.trigger === 'manual') this.manualCompaction = true;
    const reason =
      outcome === 'skipped' ? (value.message ?? value.reason) : (value.error?.message ?? value.reason ?? value.message);
    const row: CompactionRow = {
      beforeStep: value.step ?? this.pendingStep(),
      outcome,
      ...definedFields(value, COMPACTION_FIGURES),
      ...(reason === undefined ? {} : { reason }),
    };
    const open = this.openCompaction;
    this.openCompaction = undefined;
    if (outcome === 'started') {
      this.openCompaction = this.compactions.items.length < LISTED_ROWS ? this.compactions.items.length : 'unlisted';
      this.compactions.push(row);
    } else if (open === undefined) {
      this.compactions.push(row);
    } else if (open !== 'unlisted') {
      this.compactions.items[open] = { ...this.compactions.items[open], ...row };
    }
  }

  /** Notes the coverage check's repair or refusal on the compaction it belongs to (the open one). */
  private onCoverage(value: EventOf<'context.checkpoint.coverage'>): void {
    const listed = value.items.slice(0, 3).map((item) => `${item.kind.replace('_', ' ')} #${item.seq}`);
    const more = value.missingCount > listed.length ? `, ${value.missingCount - listed.length} more` : '';
    const coverage = `coverage ${value.outcome} ${value.missingCount} missing: ${listed.join(', ')}${more}`;
    const open = this.openCompaction;
    if (typeof open === 'number')
      this.compactions.items[open] = { ...this.compactions.items[open], coverage } as CompactionRow;
    else
      this.compactions.push({
        beforeStep: value.step ?? this.pendingStep(),
        outcome: 'started',
        ...(value.strategy === undefined ? {} : { strategy: value.strategy }),
        coverage,
      });
  }

  /** The report of everything added so far. */
  report(): RunReport {
    const budget = [...this.steps.values()]
      .sort((left, right) => left.step - right.step)
      .map((row) => finishStep(row, this.reconciledErrors.get(row.step)));
    const errors = budget.flatMap((row) => (row.errorPercent === undefined ? [] : [Math.abs(row.errorPercent)]));
    const meanAbsoluteErrorPercent =
      errors.length === 0 ? undefined : roundTo(errors.reduce((sum, value) => sum + value, 0) / errors.length, 1);
    const durationMs = this.durationMs ?? durationBetween(this.firstTimestamp, this.lastTimestamp);
    const usage = this.endUsage ?? this.stepUsage;
    const ratio = hitRatioOf(usage);
    const cost = this.endCost ?? this.stepCost;
    return {
      kind: !this.sawRunStart && this.manualCompaction ? 'compaction' : 'run',
      runId: this.runId,
      ...(this.sessionId === undefined ? {} : { sessionId: this.sessionId }),
      file: this.file,
      engine: this.engine,
      ...(this.model === undefined ? {} : { model: this.model }),
      status: this.status,
      ...(this.firstTimestamp === undefined ? {} : { startedAt: this.firstTimestamp }),
      ...(this.endedAt === undefined ? {} : { endedAt: this.endedAt }),
      ...(durationMs === undefined ? {} : { durationMs }),
      steps: Math.max(this.endSteps ?? 0, this.currentStep),
      ...(this.maxSteps === undefined ? {} : { maxSteps: this.maxSteps }),
      ...(this.instructionsHash === undefined ? {} : { instructionsHash: this.instructionsHash }),
      advertisedTools: this.advertisedTools,
      usage,
      ...(ratio === undefined ? {} : { cacheHitRatio: ratio }),
      ...(this.prices === undefined ? {} : { prices: this.prices }),
      ...(cost === undefined ? {} : { cost }),
      unpricedSteps: budget.filter(
        (row) => row.cost === undefined && (row.reportedInputTokens !== undefined || row.outputTokens !== undefined),
      ).length,
      ...(this.error === undefined ? {} : { error: this.error }),
      ...(this.window === undefined ? {} : { window: this.window }),
      budget,
      ...(meanAbsoluteErrorPercent === undefined ? {} : { meanAbsoluteErrorPercent }),
      warnings: this.warnings,
      ...(this.estimatorFlagged === undefined ? {} : { estimatorFlagged: this.estimatorFlagged }),
      compactions: this.compactions.items,
      compactionsNotListed: this.compactions.notListed,
      stops: this.stops.items,
      stopsNotListed: this.stops.notListed,
      toolCalls: this.toolCalls.summary(),
      unknownEvents: [...this.unknown.entries()].map(([type, count]) => ({ type, count })),
      events: this.events,
    };
  }
}

/** Turns a step row into its report form in place (rows are many; copying them would double the memory). */
function finishStep(row: MutableStep, reconciledErrorPercent: number | undefined): StepBudget {
  const computed =
    row.estimateCovers === undefined &&
    row.estimatedTokens !== undefined &&
    row.reportedInputTokens !== undefined &&
    row.reportedInputTokens > 0
      ? roundTo(((row.estimatedTokens - row.reportedInputTokens) / row.reportedInputTokens) * 100, 1)
      : undefined;
  const errorPercent =
    computed ?? (reconciledErrorPercent === undefined ? undefined : roundTo(reconciledErrorPercent, 1));
  if (errorPercent !== undefined) row.errorPercent = errorPercent;
  return row;
}
