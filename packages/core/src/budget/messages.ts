import type { ContextBudget } from './budget.js';

/** `12345` → `12,345`, the same on every machine. */
export function formatTokens(tokens: number): string {
  return tokens.toLocaleString('en-US');
}

/**
 * `[start, end)`: how every output names a run of stored messages. Message numbers start at 0,
 * as in the checkpoint view (`#0 user`), and the end is not included.
 */
export function formatMessageRange(start: number, end: number): string {
  return `[${start}, ${end})`;
}

function percent(part: number, whole: number): string {
  return whole <= 0 ? '∞%' : `${Math.round((part / whole) * 100)}%`;
}

function windowPhrase(budget: ContextBudget): string {
  const cap = budget.maxInputTokens === undefined ? '' : `, input cap ${formatTokens(budget.maxInputTokens)}`;
  return `window ${formatTokens(budget.contextWindowTokens)} (${budget.windowSource})${cap}, reserve ${formatTokens(budget.reservedTokens)}`;
}

/** Why preflight warns, in one sentence a user can act on. */
export function thresholdWarningMessage(budget: ContextBudget): string {
  const used = budget.estimate.tokens;
  if (budget.overBudget) {
    return (
      `The next request is estimated at ${formatTokens(used)} tokens, more than the ${formatTokens(budget.availableInputTokens)} available for input ` +
      `(${windowPhrase(budget)}); the provider may refuse it.`
    );
  }
  return (
    `The next request is estimated at ${formatTokens(used)} tokens, ${percent(used, budget.availableInputTokens)} of the ` +
    `${formatTokens(budget.availableInputTokens)} available for input (${windowPhrase(budget)}).`
  );
}

/** When the counts were scaled by a learned calibration: that it may be the cause, and how to reset it. */
function calibrationNote(budget: ContextBudget): string {
  const calibration = budget.estimate.calibration;
  if (calibration === undefined) return '';
  return (
    ` These counts include a calibration × ${calibration.factor} learned from earlier usage reports of ${calibration.model}; ` +
    `if those reports were wrong, reset it with: forge models calibration reset ${calibration.model}`
  );
}

/** Why the run stopped before contacting the provider, with the breakdown of what cannot be dropped. */
export function limitReachedMessage(budget: ContextBudget, modelLabel: string): string {
  const { instructions, request, toolSchemas, continuation, overhead } = budget.estimate.categories;
  const parts = [
    `instructions ${formatTokens(instructions)}`,
    `current request ${formatTokens(request)}`,
    `tool schemas ${formatTokens(toolSchemas)}`,
    `this run's tool calls and results ${formatTokens(continuation)}`,
    `framing ${formatTokens(overhead)}`,
  ];
  return (
    `The request does not fit ${modelLabel}: what must be sent needs ${formatTokens(budget.mandatoryTokens)} tokens ` +
    `(${parts.join(', ')}) but only ${formatTokens(budget.availableInputTokens)} are available for input (${windowPhrase(budget)}). ` +
    'Nothing was sent. Shorten the request or the instruction files, advertise fewer tools, or choose a model with a larger window.' +
    calibrationNote(budget)
  );
}

/**
 * Why a run in a mode that never compacts (`off`, `warn`, `shadow`) stopped: the whole
 * conversation no longer fits, and what to do to continue.
 */
export function wholeHistoryLimitMessage(budget: ContextBudget, modelLabel: string): string {
  const { history, checkpoint } = budget.estimate.categories;
  return (
    `The whole conversation no longer fits ${modelLabel}: the request needs ${formatTokens(budget.estimate.tokens)} tokens ` +
    `(${formatTokens(history + checkpoint)} of them earlier turns) but only ${formatTokens(budget.availableInputTokens)} are available for input (${windowPhrase(budget)}). ` +
    `Nothing was sent, and mode ${budget.mode} never shortens history. To continue this session, compact it (forge compact --last, or /compact in the REPL) ` +
    'and run with --context-mode compact (or set context.mode to compact); or start a new session.' +
    calibrationNote(budget)
  );
}

/** Why the provider's own count triggered a warning. */
export function providerUsageWarningMessage(reportedInputTokens: number, budget: ContextBudget, step: number): string {
  return (
    `The provider reported ${formatTokens(reportedInputTokens)} input tokens for step ${step}, ` +
    `${percent(reportedInputTokens, budget.availableInputTokens)} of the ${formatTokens(budget.availableInputTokens)} available for input.`
  );
}
