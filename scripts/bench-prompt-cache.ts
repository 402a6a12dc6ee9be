/*
 * Prompt-cache simulator benchmark: what simulating OpenAI's prefix cache costs per request of a
 * growing session, next to counting the request once with o200k (what any eval does anyway), and
 * what pricing a step costs.
 *
 *   npx tsx --conditions=@forge/source scripts/bench-prompt-cache.ts
 */
import { performance } from 'node:perf_hooks';
import { createPromptCacheSimulator, OPENAI_PROMPT_CACHE, priceUsage } from '@forge/core/pricing';
import { countO200kTokens, loadO200kTokenizer, OPENAI_PRICE_TABLE } from '@forge/model-openai';
import { median } from './bench-support.js';

const REQUESTS = 60;
const RUNS = 5;

/** A session whose request grows by a tool round each step: about 2,500 tokens per step, to ~150k. */
function requests(): string[] {
  const texts: string[] = [];
  let text = `{"model":"gpt-5.1","tools":[${'{"name":"read_file","description":"Read a text file of the workspace."},'.repeat(6)}]}\n{"role":"system","content":"${'Keep changes small and verified. '.repeat(120)}"}`;
  for (let step = 0; step < REQUESTS; step += 1) {
    const body = Array.from(
      { length: 120 },
      (_, line) => `export function handler${step}_${line}(input: string): string { return input.trim(); }`,
    ).join('\\n');
    text += `\n{"type":"function_call","call_id":"call_${step}","name":"read_file","arguments":"{\\"path\\":\\"src/m${step}.ts\\"}"}\n{"type":"function_call_output","call_id":"call_${step}","output":"${body}"}`;
    texts.push(text);
  }
  return texts;
}

const tokenizer = await loadO200kTokenizer();
const count = (text: string) => countO200kTokens(tokenizer, text);
const session = requests();
const prices = OPENAI_PRICE_TABLE['gpt-5.1'];
if (prices === undefined) throw new Error('no gpt-5.1 prices');

const countOnly: number[] = [];
const simulated: number[] = [];
const pricing: number[] = [];
let hits = 0;
let input = 0;
for (let run = 0; run < RUNS; run += 1) {
  let started = performance.now();
  for (const text of session) count(text);
  countOnly.push((performance.now() - started) / session.length);

  const cache = createPromptCacheSimulator({ rules: OPENAI_PROMPT_CACHE, countTokens: count });
  started = performance.now();
  const usages = session.map((text, index) => cache.request({ key: 'k', text, at: index * 30_000 }));
  simulated.push((performance.now() - started) / session.length);
  hits = usages.reduce((sum, usage) => sum + usage.cachedTokens, 0);
  input = usages.reduce((sum, usage) => sum + usage.inputTokens, 0);

  started = performance.now();
  for (let repeat = 0; repeat < 1000; repeat += 1) {
    for (const usage of usages)
      priceUsage(
        {
          inputTokens: usage.inputTokens,
          cacheReadTokens: usage.cachedTokens,
          cacheWriteTokens: undefined,
          outputTokens: 200,
          reasoningTokens: undefined,
        },
        prices,
      );
  }
  pricing.push(((performance.now() - started) * 1000) / (1000 * usages.length));
}

const last = session.at(-1) ?? '';
console.log(
  `session: ${REQUESTS} requests growing to ${count(last).toLocaleString('en-US')} o200k tokens (${(last.length / 1e6).toFixed(2)} MB); median of ${RUNS} runs`,
);
console.log(`count each request with o200k     ${median(countOnly).toFixed(2)} ms per request`);
console.log(
  `simulate the prompt cache          ${median(simulated).toFixed(2)} ms per request (${(median(simulated) / median(countOnly)).toFixed(2)}× counting alone)`,
);
console.log(`price one step (priceUsage)        ${median(pricing).toFixed(3)} µs`);
console.log(`cached share of the session input  ${((hits / input) * 100).toFixed(1)}%`);
