import { ForgeError, type ModelAdapter } from '@forge/core';
import {
  blockingFailures,
  DEFAULT_GATES,
  loadFixtureDirectory,
  loadEvalPrices,
  loadGatesConfig,
  loadSuite,
  parseAgentNames,
  renderProgress,
  renderTextReport,
  reportPassed,
  runEval,
  selectModes,
  writeReportDirectory,
  type EvalProgress,
  type GatesConfig,
  type LoadedFixture,
  SUITE_NAMES,
  type SuiteName,
} from '@forge/evals';
import { resolve } from 'node:path';
import { CliError, UsageError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { resolveModel } from '../models/resolve-model.js';
import { styleFor } from '../output/style.js';
import type { EvalOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/** An option's value, with an empty one (`--suite ''`) taken as not given. */
function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.length > 0 ? value : undefined;
}

/** Turns the harness's input errors (bad fixture, unknown mode) into usage errors (exit 2). */
async function usage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (ForgeError.isInstance(error)) throw new UsageError(error.message);
    throw error;
  }
}

async function chooseFixtures(options: EvalOptions, io: CliIo): Promise<{ fixtures: LoadedFixture[]; source: string }> {
  const directory = nonEmpty(options.fixtures);
  const suite = nonEmpty(options.suite);
  if (directory !== undefined && suite !== undefined)
    throw new UsageError('--suite and --fixtures both choose fixtures; give one of them');
  if (directory !== undefined && nonEmpty(options.except) !== undefined)
    throw new UsageError('--except leaves out fixtures of a built-in suite; it does not apply to --fixtures');
  if (directory !== undefined) {
    const path = resolve(io.cwd, directory);
    return { fixtures: await usage(() => loadFixtureDirectory(path)), source: `fixtures ${directory}` };
  }
  const known = knownSuite(suite ?? 'smoke');
  const except = (nonEmpty(options.except)?.split(',') ?? []).map((name) => knownSuite(name.trim()));
  const fixtures = (await usage(() => loadSuite(known))).filter((item) =>
    except.every((left) => !item.fixture.suites.includes(left)),
  );
  if (fixtures.length === 0) throw new UsageError(`--except ${options.except} leaves no fixture of suite ${known}`);
  return { fixtures, source: except.length === 0 ? `suite ${known}` : `suite ${known} except ${except.join(', ')}` };
}

function knownSuite(name: string): SuiteName {
  const known = SUITE_NAMES.find((candidate) => candidate === name);
  if (known === undefined)
    throw new UsageError(`unknown suite "${name}"; the built-in suites are ${SUITE_NAMES.join(', ')}`);
  return known;
}

/** Progress on stderr: one line rewritten in place on a terminal, a line per finished fixture × mode otherwise. */
function progressReporter(io: CliIo): {
  readonly update: (progress: EvalProgress) => void;
  readonly finish: () => void;
} {
  const interactive = io.stderr.isTTY === true;
  let lastLength = 0;
  return {
    update(progress) {
      if (interactive) {
        const line = renderProgress(progress).slice(0, Math.max(20, (io.stderr.columns ?? 80) - 1));
        io.stderr.write(`\r${line}${' '.repeat(Math.max(0, lastLength - line.length))}`);
        lastLength = line.length;
        return;
      }
      if (progress.event === 'finished')
        io.stderr.write(
          `forge eval: [${progress.done}/${progress.total}] ${progress.fixture} × ${progress.mode}${progress.agent === undefined ? '' : ` [${progress.agent}]`} done\n`,
        );
    },
    finish() {
      if (interactive && lastLength > 0) io.stderr.write(`\r${' '.repeat(lastLength)}\r`);
    },
  };
}

/**
 * `forge eval`: runs fixtures (a built-in suite, or every fixture in `--fixtures DIR`) in each
 * context mode and the naive baselines, prints the metrics and the gates, and exits 1 when a gate
 * failed (naming it), 2 on a usage error, 0 otherwise. Offline by default: the policy model plays
 * the agent. `--live --model provider:id` plays the same fixtures with a real model.
 */
export async function execute({ options, io }: CommandInvocation<EvalOptions>): Promise<number> {
  const { fixtures, source } = await chooseFixtures(options, io);
  const modeList = nonEmpty(options.mode)
    ?.split(',')
    .map((mode) => mode.trim())
    .filter((mode) => mode.length > 0);
  const modes = await usage(async () => selectModes(modeList));
  const agentOption = nonEmpty(options.agent);
  const agents = await usage(async () => parseAgentNames(agentOption));
  const gatesFile = nonEmpty(options.gates);
  const gates: GatesConfig =
    gatesFile === undefined ? DEFAULT_GATES : await usage(() => loadGatesConfig(resolve(io.cwd, gatesFile)));
  const pricesOption = options.prices;
  if (pricesOption !== undefined && nonEmpty(pricesOption) === undefined)
    throw new UsageError('--prices needs a sheet: openai, deepseek, anthropic, or a JSON price file');
  const priceSheet = await usage(() =>
    loadEvalPrices(nonEmpty(pricesOption) ?? 'openai', (file) => resolve(io.cwd, file)),
  );

  const live = options.live === true;
  const modelId = nonEmpty(options.model);
  if (live && modelId === undefined)
    throw new UsageError('--live needs a model: --live --model openai:<model> (the key comes from the environment)');
  if (!live && modelId !== undefined)
    throw new UsageError('--model is used by forge eval only with --live; offline runs use the policy model');
  if (live && agentOption !== undefined)
    throw new UsageError(
      '--agent chooses the offline policy agent; a --live run is played by the real model, so leave --agent out',
    );
  let model: ModelAdapter | undefined;
  if (live && modelId !== undefined)
    model = await resolveModel(modelId, {
      env: io.env,
      ...(io.modelProviders === undefined ? {} : { extraProviders: io.modelProviders }),
    });

  const progress = progressReporter(io);
  const report = await runEval({
    fixtures,
    modes,
    agents,
    gates,
    source,
    priceSheet,
    // A live provider is asked one fixture × mode at a time, to stay within its rate limits.
    ...(model === undefined
      ? {}
      : {
          createModel: async () => model as ModelAdapter,
          modelLabel: `${model.provider}:${model.modelId} (live)`,
          concurrency: 1,
        }),
    onProgress: progress.update,
  });
  progress.finish();

  const reportDirectory = nonEmpty(options.report);
  if (reportDirectory !== undefined) {
    const path = resolve(io.cwd, reportDirectory);
    try {
      const written = await writeReportDirectory(path, report);
      io.stderr.write(`forge: wrote ${written.markdown}, ${written.html} and ${written.json}\n`);
    } catch (error) {
      throw new CliError(
        `could not write the report to ${path} (${error instanceof Error ? error.message : String(error)}); choose a writable directory for --report`,
      );
    }
  }

  if (options.json === true) io.stdout.write(`${JSON.stringify(report)}\n`);
  else
    io.stdout.write(
      renderTextReport(
        report,
        styleFor(io.stdout, io.env),
        io.stdout.isTTY === true ? { columns: io.stdout.columns ?? 80 } : {},
      ),
    );

  const several = report.agents.length > 1;
  for (const error of report.errors)
    io.stderr.write(
      `forge: error: ${error.fixture} × ${error.mode}${several ? ` [${error.agent}]` : ''} could not run: ${error.message}\n`,
    );
  const failed = blockingFailures(report.gates);
  const paint = styleFor(io.stderr, io.env);
  for (const gate of failed) {
    const subject = several ? `${gate.mode}, ${gate.agent}` : gate.mode;
    io.stderr.write(
      `forge: ${paint.red('gate failed')}: ${gate.gate} [${subject}]: ${gate.actual}, needs ${gate.threshold}${gate.detail.length > 0 ? ` (${gate.detail})` : ''}\n`,
    );
  }
  return reportPassed(report) ? ExitCode.ok : ExitCode.failure;
}
