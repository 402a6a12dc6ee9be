import { fitRequest } from './fit-request.js';
import { modelStep } from './model-step.js';
import { prepareStep } from './prepare-request.js';
import { preflightStep } from './preflight.js';
import { resolveStep, type StepResolution } from './resolve-step.js';
import { cancelRun, startRun } from './run-state.js';
import { toolStep } from './tool-step.js';
import type { RunAgentOptions, RunResult } from './types.js';

/**
 * Runs one agent turn: model step → tool calls → results → next step, until the model answers
 * without tool calls, the step limit is reached, the run is cancelled or a step fails. Never
 * throws for model or tool failures; they end the run with a typed status instead.
 *
 * Each step goes through the phases in order: prepare the request, fit it into the window, check
 * its budget before anything is sent, the model step, resolve the step, the tool step.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunResult> {
  const run = await startRun(options);
  while (run.steps < run.maxSteps) {
    if (run.signal.aborted) return cancelRun(run);
    const pending = prepareStep(run);
    const fitted = await fitRequest(run.context, pending);
    const prepared = fitted.kind === 'stop' ? fitted : await preflightStep(run.context, pending.step, fitted);
    if (prepared.kind === 'stop') return run.finish(prepared.stop.status, prepared.stop.error);
    run.steps = pending.step;
    let next: StepResolution = { kind: 'send', prepared };
    while (next.kind === 'send') {
      const outcome = await modelStep(run, pending.step, next.prepared.request);
      next = await resolveStep(run, pending, next.prepared, outcome);
    }
    if (next.kind === 'finish') return next.result;
    await toolStep(run, pending.step, next.calls);
    if (run.signal.aborted) return cancelRun(run);
  }
  return run.finish('step_limit', {
    code: 'step_limit',
    message: `The run stopped after ${run.maxSteps} model steps without a final answer.`,
    isRetryable: false,
  });
}
