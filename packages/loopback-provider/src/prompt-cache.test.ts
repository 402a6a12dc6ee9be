import { cacheableTokens, OPENAI_PROMPT_CACHE } from '@forge/core/pricing';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheText, comparePrefix, startLoopbackProvider, turn, type LoopbackProvider } from './index.js';

/* The loopback server's simulated prompt cache, over HTTP, in both protocols' usage fields. */

let server: LoopbackProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** One token per character: the cached counts can be checked exactly. */
const perCharacter = (text: string) => text.length;
const long = 'x'.repeat(3000);

async function post(path: string, body: unknown): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${server?.baseURL ?? ''}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

interface ResponsesUsage {
  readonly input_tokens: number;
  readonly input_tokens_details: Record<string, number>;
  readonly output_tokens: number;
}

function responsesUsage(events: Record<string, unknown>[]): ResponsesUsage {
  const completed = events.at(-1)?.['response'] as { usage?: ResponsesUsage } | undefined;
  if (completed?.usage === undefined) throw new Error('the stream did not end with a response and its usage');
  return completed.usage;
}

describe('simulated prompt cache', () => {
  it('reports the input and the cached prefix of each Responses request by its prompt cache key, keeping scripted output', async () => {
    let now = 0;
    server = await startLoopbackProvider({ promptCache: { countTokens: perCharacter, now: () => now } });
    server.handle(() => turn({ text: 'ok', usage: { inputTokens: 1, outputTokens: 7 } }));
    const first = { model: 'm', prompt_cache_key: 'k', input: [{ role: 'user', content: long }] };
    const second = {
      ...first,
      input: [...first.input, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'more' }],
    };
    const cold = responsesUsage(await post('/responses', first));
    const [sent] = server.requests;
    expect(cold.input_tokens).toBe(sent === undefined ? -1 : perCharacter(cacheText(sent)));
    expect(cold.input_tokens_details.cached_tokens).toBe(0);
    expect(cold.output_tokens).toBe(7);
    now = 60_000;
    const warm = responsesUsage(await post('/responses', second));
    expect(warm.input_tokens_details.cached_tokens).toBe(
      cacheableTokens(cold.input_tokens, warm.input_tokens, OPENAI_PROMPT_CACHE),
    );
    expect(warm.input_tokens_details.cache_write_tokens).toBeUndefined();
    const [earlier, later] = server.requests;
    expect(earlier !== undefined && later !== undefined && comparePrefix(earlier, later).extends).toBe(true);

    const otherKey = responsesUsage(await post('/responses', { ...second, prompt_cache_key: 'other' }));
    expect(otherKey.input_tokens_details.cached_tokens).toBe(0);
    now += OPENAI_PROMPT_CACHE.lifetimeMs + 1;
    expect(responsesUsage(await post('/responses', second)).input_tokens_details.cached_tokens).toBe(0);
  });

  it("reports DeepSeek's hit and miss counts on Chat Completions, and cache writes when asked to", async () => {
    server = await startLoopbackProvider({
      chatUsageStyle: 'deepseek',
      promptCache: { countTokens: perCharacter, reportWrites: true },
    });
    server.handle(() => turn({ text: 'ok', usage: { inputTokens: 1, outputTokens: 2 } }));
    const body = {
      model: 'deepseek-v4-pro',
      stream: true,
      messages: [
        { role: 'system', content: long },
        { role: 'user', content: 'hi' },
      ],
    };
    await post('/chat/completions', body);
    const events = await post('/chat/completions', {
      ...body,
      messages: [...body.messages, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'again' }],
    });
    const usage = events.find((event) => event['usage'] !== undefined)?.['usage'] as Record<string, number>;
    expect(usage['prompt_cache_hit_tokens']).toBeGreaterThan(3000);
    expect((usage['prompt_cache_hit_tokens'] ?? 0) + (usage['prompt_cache_miss_tokens'] ?? 0)).toBe(
      usage['prompt_tokens'],
    );

    server.enqueue(turn({ text: 'ok' }));
    const responses = responsesUsage(
      await post('/responses', { model: 'm', input: [{ role: 'user', content: long }] }),
    );
    expect(responses.input_tokens_details.cache_write_tokens).toBe(
      cacheableTokens(responses.input_tokens, responses.input_tokens, OPENAI_PROMPT_CACHE),
    );
  });
});
