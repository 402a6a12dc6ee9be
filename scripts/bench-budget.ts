/*
 * Budget benchmark: how fast Forge measures what it sends.
 *   1. cold o200k counting throughput on ~1 MB of mixed code and prose (gpt-tokenizer, as Forge uses
 *      it), the tokenizer load time, and the conservative estimator on the same text;
 *   2. view selection (core's selectRequestView: the view rule, the adapter's estimate, the decision)
 *      plus the preflight, per step, on a synthetic 1M-token session after appending one message,
 *      through the OpenAI adapter's exact o200k counter (target ≤ 2 ms median), in mode warn (the
 *      whole transcript) and mode compact (a checkpoint and every message after it), and the same
 *      after the session was reloaded from disk;
 *   2b. the first step of a run on that 1M-token session far past the compaction threshold
 *      (mode compact, no checkpoint): the projection choice and its confirming estimate, then the
 *      next run sending the same outputs projected;
 *   3. js-tiktoken beside gpt-tokenizer (and the WASM tiktoken reference) on the same documents,
 *      asserting identical counts and printing the speed ratio that chose the tokenizer.
 *
 *   npx tsx --conditions=@forge/source scripts/bench-budget.ts
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  countTextConservatively,
  createInstructionSnapshot,
  emptyUsage,
  resolveContextPolicy,
  runAgent,
  type ContextPolicy,
  type ForgeEvent,
  type Message,
  type ModelAdapter,
  type ToolDefinition,
} from '@forge/core';

import { selectRequestView, summarizeView } from '@forge/core/view';
import { mixedCorpus } from './bench-corpus.js';
import { countO200kTokens, createO200kEstimator, createOpenAIModel, loadO200kTokenizer } from '@forge/model-openai';
import { format, median, percentile } from './bench-support.js';
import { preflightRequest } from '@forge/core/internals';

const root = join(import.meta.dirname, '..');
const requireFromAdapter = createRequire(join(root, 'packages/model-openai/package.json'));

async function coldCounting(documents: readonly string[]): Promise<void> {
  const bytes = documents.reduce((total, text) => total + Buffer.byteLength(text), 0);
  const loadStarted = performance.now();
  const tokenizer = await loadO200kTokenizer();
  const loadMs = performance.now() - loadStarted;
  const started = performance.now();
  let tokens = 0;
  for (const text of documents) tokens += countO200kTokens(tokenizer, text);
  const seconds = (performance.now() - started) / 1000;
  const conservativeStarted = performance.now();
  let conservative = 0;
  for (const text of documents) conservative += countTextConservatively(text);
  const conservativeSeconds = (performance.now() - conservativeStarted) / 1000;

  console.log('1. Cold counting (first pass over the corpus)');
  console.log(
    `   corpus                     ${documents.length} documents, ${format(bytes / 1e6, 2)} MB, ${format(tokens)} o200k tokens`,
  );
  console.log(`   o200k tokenizer load       ${format(loadMs)} ms (once per process, on first estimate)`);
  console.log(`   gpt-tokenizer o200k        ${format(tokens / seconds)} tokens/s (${format(seconds * 1000)} ms)`);
  console.log(
    `   conservative estimator     ${format(tokens / conservativeSeconds)} o200k-tokens/s (${format(conservativeSeconds * 1000)} ms); counts ${format(conservative)} = ${format(conservative / tokens, 2)}× o200k`,
  );
}

/** A coding session: requests, reasoning, tool calls with JSON arguments, file contents, command output. */
async function syntheticSession(
  documents: readonly string[],
  targetTokens: number,
  count: (message: Message) => Promise<number>,
): Promise<Message[]> {
  const messages: Message[] = [];
  let tokens = 0;
  for (let round = 0; tokens < targetTokens; round += 1) {
    const file = documents[round % documents.length] ?? '';
    const body = file.slice(0, 6000);
    const id = `call_${round}`;
    const turn: Message[] = [
      { role: 'user', content: `Round ${round}: look at file ${round} and fix the failing check.` },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: `I should read file ${round} first, then run the tests.` },
          {
            type: 'tool-call',
            toolCallId: id,
            toolName: 'read_file',
            input: { path: `src/module-${round}.ts`, maxBytes: 65_536 },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: body } },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'text', text: `File ${round} reads cleanly; the check fails on line ${round % 97}.` }],
      },
    ];
    for (const message of turn) {
      messages.push(message);
      tokens += await count(message);
    }
  }
  return messages;
}

async function warmPreflight(documents: readonly string[]): Promise<void> {
  // The OpenAI adapter itself (exact o200k counts) with the 1,047,576-token window of gpt-4.1, a fresh one per scenario: nothing is sent.
  const adapter = () => createOpenAIModel({ modelId: 'gpt-4.1', apiKey: 'sk-bench-never-sent', env: {} });
  const sizing = createO200kEstimator();
  const history = await syntheticSession(documents, 1_000_000, (message) => sizing.countMessage(message));
  const tools = ['read_file', 'search', 'edit_file', 'run_command', 'list_files'].map((name) => ({
    name,
    description: `The ${name} tool of the workspace.`,
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, query: { type: 'string' } },
      required: ['path'],
    },
  }));
  const currentRequest = { role: 'user' as const, content: 'Continue with the next failing check.' };
  const instructions = documents[0] ?? '';
  const fixed = { instructions, currentRequest, tools };
  // Mode compact: a checkpoint covers all but the last ~100k tokens, which are sent verbatim.
  const counts = await Promise.all(history.map((message) => sizing.countMessage(message)));
  let covered = history.length;
  for (let tail = 0; covered > 0 && tail < 100_000; covered -= 1) tail += counts[covered - 1] ?? 0;
  while (covered > 0 && history[covered]?.role !== 'user') covered -= 1;
  const checkpoint = {
    id: 'cp_bench',
    coveredThrough: covered,
    text: `[SESSION_CHECKPOINT v1]\n${'- a remembered fact about the session\n'.repeat(400)}`,
  };

  console.log('');
  console.log(
    `2. View selection + preflight per step on a synthetic 1M-token session (${format(history.length)} messages), OpenAI adapter, gpt-4.1 window`,
  );
  await preflightScenario({
    label: 'mode warn: the whole transcript verbatim',
    policy: resolveContextPolicy({ mode: 'warn' }),
    model: adapter(),
    history,
    fixed,
  });
  await preflightScenario({
    label: `mode compact: checkpoint of messages [0, ${covered}) + every message after it`,
    policy: resolveContextPolicy({ mode: 'compact' }),
    model: adapter(),
    history,
    fixed,
    checkpoint,
  });
  await projectionChoice(adapter(), history, fixed);
}

type ViewInput = Parameters<typeof selectRequestView>[0];
type SelectedView = Awaited<ReturnType<typeof selectRequestView>>;

interface PreflightScenario {
  readonly label: string;
  readonly policy: ContextPolicy;
  readonly model: ModelAdapter;
  readonly history: readonly Message[];
  readonly fixed: ViewInput['fixed'];
  readonly checkpoint?: ViewInput['checkpoint'];
}

const WARM_STEPS = 101;

/** The cold first step, one message appended per warm step, then the session reloaded from disk. */
async function preflightScenario(scenario: PreflightScenario): Promise<void> {
  const coldStarted = performance.now();
  const cold = await viewAndPreflight(scenario, scenario.history, 0);
  const coldMs = performance.now() - coldStarted;
  const warm: number[] = [];
  let session: readonly Message[] = scenario.history;
  for (let index = 1; index <= WARM_STEPS; index += 1) {
    session = [
      ...session,
      {
        role: 'assistant',
        content: [{ type: 'text', text: `Step ${index}: applied the fix and re-ran the check; ${index} tests pass.` }],
      },
    ];
    const started = performance.now();
    await viewAndPreflight(scenario, session, index);
    warm.push(performance.now() - started);
  }
  // After a reload every message is a new object: found by content hash, not re-tokenized.
  const reloaded = JSON.parse(JSON.stringify(session)) as Message[];
  const reloadStarted = performance.now();
  await viewAndPreflight(scenario, reloaded, WARM_STEPS + 1);
  const reloadMs = performance.now() - reloadStarted;
  printScenario(scenario.label, cold, { coldMs, warm, reloadMs });
}

async function viewAndPreflight(
  { policy, model, fixed, checkpoint }: PreflightScenario,
  messages: readonly Message[],
  index: number,
): Promise<SelectedView> {
  const view = await selectRequestView({
    transcript: messages,
    ...(checkpoint === undefined ? {} : { checkpoint }),
    policy,
    model,
    fixed,
  });
  const events: unknown[] = [];
  const summary = summarizeView({
    stored: view.end,
    covered: view.coveredThrough,
    verbatim: view.end - view.tailStart,
  });
  await preflightRequest({
    model,
    request: view.request,
    policy,
    step: index,
    instructionsHash: 'h',
    emit: (event) => events.push(event),
    view: summary,
  });
  return view;
}

function printScenario(
  label: string,
  cold: SelectedView,
  timings: { readonly coldMs: number; readonly warm: readonly number[]; readonly reloadMs: number },
): void {
  const { coldMs, warm, reloadMs } = timings;
  const decision =
    cold.decision.kind === 'compact'
      ? `compact (${cold.decision.trigger})`
      : cold.decision.kind === 'cannot_fit'
        ? `cannot fit (${cold.decision.reason})`
        : cold.decision.kind;
  console.log(`   ${label}`);
  console.log(
    `     request                  ${format(cold.request.history.length)} messages verbatim, ${format(cold.budget.estimate.tokens)} estimated input tokens; decision ${decision}`,
  );
  console.log(`     cold                     ${format(coldMs)} ms (every message tokenized once)`);
  console.log(
    `     warm, one message added  median ${format(median(warm), 3)} ms, p95 ${format(percentile(warm, 0.95), 3)} ms over ${WARM_STEPS} steps (target ≤ 2 ms median)`,
  );
  console.log(`     after reload from disk   ${format(reloadMs)} ms (content-hash cache, no re-tokenizing)`);
  if (median(warm) > 2) console.log('     WARNING: the warm median is above the 2 ms target');
}

/**
 * 2b: the first step of a run whose request is far past the threshold (the whole 1M-token session,
 * no checkpoint, mode compact), through `runAgent` with the OpenAI adapter's counter: the view,
 * the projection choice (candidates, per-output savings counted once per message, one confirming
 * estimate) and the preflight, timed up to the provider call; then the next run, which sends the
 * same outputs projected from its first step.
 */
async function projectionChoice(
  counter: ReturnType<typeof createOpenAIModel>,
  history: readonly Message[],
  fixed: { readonly instructions: string; readonly tools: readonly ToolDefinition[] },
): Promise<void> {
  let calledAt = 0;
  const model: ModelAdapter = {
    specificationVersion: 'forge-model-v1',
    provider: counter.provider,
    modelId: counter.modelId,
    capabilities: counter.capabilities,
    estimateRequestTokens: (request) => counter.estimateRequestTokens(request),
    countMessageTokens: (messages) => counter.countMessageTokens(messages),
    async *doStream() {
      calledAt = performance.now();
      yield { type: 'text-delta', delta: 'ok' };
      yield { type: 'finish', finishReason: 'stop', usage: emptyUsage };
    },
  };
  const instructions = createInstructionSnapshot(fixed.instructions);
  const events: ForgeEvent[] = [];
  const run = async (messages: readonly Message[], projected: readonly string[]) => {
    const started = performance.now();
    const result = await runAgent({
      model,
      instructions,
      request: 'Continue with the next failing check.',
      session: { history: { messages: messages }, capabilities: { projectedToolCalls: projected } },
      context: { mode: 'compact' },
      onEvent: (envelope) => events.push(envelope.event),
    });
    return { ms: calledAt - started, messages: result.messages };
  };
  // Every message tokenized once beforehand, as the scenarios above measure separately.
  await counter.estimateRequestTokens({
    instructions: fixed.instructions,
    history,
    currentRequest: { role: 'user', content: '' },
    continuation: [],
    tools: [],
  });
  const first = await run(history, []);
  const projection = events.find((event) => event.type === 'context.compaction.completed');
  const ids = projection?.type === 'context.compaction.completed' ? (projection.projectedToolCallIds ?? []) : [];
  const RUNS = 7;
  const later: number[] = [];
  for (let index = 0; index < RUNS; index += 1) later.push((await run([...history, ...first.messages], ids)).ms);
  console.log('   projection past the threshold (mode compact, no checkpoint: the whole 1M-token session)');
  if (projection?.type === 'context.compaction.completed') {
    console.log(
      `     choice                   ${format(ids.length)} outputs projected: ${format(projection.tokensBefore)} → ${format(projection.tokensAfter)} tokens, ${format(projection.keptVerbatimTokens ?? 0)} kept verbatim`,
    );
  }
  console.log(
    `     first step               ${format(first.ms)} ms to the provider call (view, projection choice, confirming estimate, preflight)`,
  );
  console.log(
    `     next run, first step     median ${format(median(later), 3)} ms over ${RUNS} runs (the same outputs sent projected, nothing new to choose)`,
  );
}

interface GptTokenizer {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
  /** gpt-tokenizer remembers merged pieces; cleared before each pass so every pass is a first pass. */
  clearMergeCache(): void;
}

/** The WASM reference: memory outside the JS heap, released with `free`. */
interface WasmTiktoken {
  encode_ordinary(text: string): Uint32Array;
  free(): void;
}

interface JsTiktoken {
  encode(text: string, allowedSpecial: string[], disallowedSpecial: string[]): number[];
}

async function sideBySide(documents: readonly string[]): Promise<void> {
  const gptTokenizer = (await import(requireFromAdapter.resolve('gpt-tokenizer/encoding/o200k_base'))) as GptTokenizer;
  const { Tiktoken } = (await import(requireFromAdapter.resolve('js-tiktoken/lite'))) as {
    Tiktoken: new (ranks: unknown) => JsTiktoken;
  };
  const { default: ranks } = (await import(requireFromAdapter.resolve('js-tiktoken/ranks/o200k_base'))) as {
    default: unknown;
  };
  const jsEncoder = new Tiktoken(ranks);
  const { get_encoding } = (await import(requireFromAdapter.resolve('tiktoken'))) as {
    get_encoding(name: 'o200k_base'): WasmTiktoken;
  };
  const wasm = get_encoding('o200k_base');
  const noSpecial = { disallowedSpecial: new Set<string>() };
  gptTokenizer.countTokens('warm up the ranks', noSpecial);

  const RUNS = 5;
  const time = (
    count: (text: string) => number,
    beforePass: () => void = () => {},
  ): { readonly ms: number; readonly counts: number[] } => {
    const runs: number[] = [];
    let counts: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      beforePass();
      const started = performance.now();
      counts = documents.map((text) => count(text));
      runs.push(performance.now() - started);
    }
    return { ms: median(runs), counts };
  };
  try {
    const jsTiktoken = time((text) => jsEncoder.encode(text, [], []).length);
    // Forge tokenizes each text once (message counts are cached), so the fair pass starts with an empty merge cache.
    const gpt = time(
      (text) => gptTokenizer.countTokens(text, noSpecial),
      () => gptTokenizer.clearMergeCache(),
    );
    const gptCached = time((text) => gptTokenizer.countTokens(text, noSpecial));
    const reference = time((text) => wasm.encode_ordinary(text).length);
    const mismatches = documents.filter(
      (_, index) =>
        jsTiktoken.counts[index] !== gpt.counts[index] ||
        jsTiktoken.counts[index] !== reference.counts[index] ||
        gptCached.counts[index] !== gpt.counts[index],
    );
    if (mismatches.length > 0)
      throw new Error(`${mismatches.length} documents counted differently by the three tokenizers`);
    const tokens = jsTiktoken.counts.reduce((total, value) => total + value, 0);

    console.log('');
    console.log(
      `3. Same corpus, loaded encoders, median of ${RUNS} passes (counts identical on all ${documents.length} documents: ${format(tokens)} tokens)`,
    );
    console.log(
      `   js-tiktoken 1.0.21         ${format(jsTiktoken.ms)} ms  ${format(tokens / (jsTiktoken.ms / 1000))} tokens/s`,
    );
    console.log(
      `   gpt-tokenizer 4.0.0        ${format(gpt.ms)} ms  ${format(tokens / (gpt.ms / 1000))} tokens/s (merge cache cleared before each pass)`,
    );
    console.log(
      `   gpt-tokenizer, cache warm  ${format(gptCached.ms)} ms  ${format(tokens / (gptCached.ms / 1000))} tokens/s (same texts again: not Forge's case)`,
    );
    console.log(
      `   tiktoken 1.0.22 (WASM)     ${format(reference.ms)} ms  ${format(tokens / (reference.ms / 1000))} tokens/s`,
    );
    console.log(
      `   ratio js-tiktoken / gpt-tokenizer time: ${format(jsTiktoken.ms / gpt.ms, 2)} (above 1: gpt-tokenizer is faster)`,
    );
  } finally {
    wasm.free();
  }
}

const documents = mixedCorpus();
await coldCounting(documents);
await warmPreflight(documents);
await sideBySide(documents);
