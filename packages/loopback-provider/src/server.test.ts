import { afterEach, describe, expect, it } from 'vitest';
import { startLoopbackProvider, turn, type LoopbackProvider } from './index.js';

let server: LoopbackProvider | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  if (server === undefined) throw new Error('no server');
  return fetch(`${server.baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer test-key' },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

function dataLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as unknown);
}

describe('loopback provider', () => {
  it('listens on 127.0.0.1 only, with an ephemeral port', async () => {
    server = await startLoopbackProvider();
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.origin).not.toMatch(/:0$/);
  });

  it('streams a Responses turn and records the request body and headers', async () => {
    server = await startLoopbackProvider();
    server.enqueue(
      turn({
        reasoning: ['Think', 'ing'],
        encryptedReasoning: 'enc-1',
        text: ['Hel', 'lo'],
        usage: { inputTokens: 10, cachedInputTokens: 4, outputTokens: 6, reasoningTokens: 2 },
      }),
    );
    const response = await post('/responses', {
      model: 'gpt-test',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = dataLines(await response.text()) as {
      type: string;
      delta?: string;
      response?: { usage?: unknown };
    }[];
    expect(events.map((event) => event.type)).toContain('response.reasoning_summary_text.delta');
    expect(events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta)).toEqual([
      'Hel',
      'lo',
    ]);
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(events.at(-1)?.response?.usage).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 6,
      output_tokens_details: { reasoning_tokens: 2 },
      total_tokens: 16,
    });
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer test-key');
    expect(server.requests[0]?.body).toMatchObject({ model: 'gpt-test' });
  });

  it('refuses a reasoning item without its following item, as the Responses API does', async () => {
    server = await startLoopbackProvider();
    server.enqueue(turn({ text: 'unused' }));
    const response = await post('/responses', {
      model: 'gpt-test',
      input: [{ type: 'reasoning', id: 'rs_1', summary: [] }],
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('without its required following item');
    expect(server.pending).toBe(1);
  });

  it('refuses an orphaned tool output and an unanswered tool call', async () => {
    server = await startLoopbackProvider();
    const orphan = await post('/responses', {
      input: [{ type: 'function_call_output', call_id: 'call_x', output: 'ok' }],
    });
    expect(orphan.status).toBe(400);
    const unanswered = await post('/responses', {
      input: [{ type: 'function_call', call_id: 'call_y', name: 'read', arguments: '{}' }],
    });
    expect(await unanswered.text()).toContain('No tool output found for function call call_y');
  });

  it('answers /responses/compact with retained user messages and a compaction item it then accepts back', async () => {
    server = await startLoopbackProvider();
    server.enqueue({ type: 'compaction', encryptedContent: 'opaque-1' });
    const compact = await post('/responses/compact', {
      model: 'gpt-test',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'first' }] },
        { role: 'assistant', content: 'answer' },
      ],
    });
    const body = (await compact.json()) as { output: Record<string, unknown>[] };
    expect(body.output.map((item) => item['type'])).toEqual(['message', 'compaction']);
    server.enqueue(turn({ text: 'ok' }));
    expect((await post('/responses', { input: body.output })).status).toBe(200);
    const forged = await post('/responses', {
      input: [{ type: 'compaction', id: 'cmp_9', encrypted_content: 'forged' }],
    });
    expect(forged.status).toBe(400);
  });

  it('streams Chat Completions with reasoning_content and DeepSeek cache usage', async () => {
    server = await startLoopbackProvider({ chatUsageStyle: 'deepseek' });
    server.enqueue(
      turn({
        reasoning: 'why',
        text: 'answer',
        toolCalls: [{ name: 'read', arguments: { path: 'a' } }],
        usage: { inputTokens: 9, cachedInputTokens: 5, outputTokens: 3 },
      }),
    );
    const response = await post('/chat/completions', {
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const text = await response.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const chunks = dataLines(text) as {
      choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
      usage?: Record<string, unknown>;
    }[];
    expect(chunks.some((chunk) => chunk.choices[0]?.delta['reasoning_content'] === 'why')).toBe(true);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_cache_hit_tokens: 5, prompt_cache_miss_tokens: 4 });
  });

  it('enforces DeepSeek reasoning_content on assistant tool-call messages when asked to', async () => {
    server = await startLoopbackProvider({ requireReasoningContent: () => true });
    const messages = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ];
    const response = await post('/chat/completions', { model: 'deepseek-reasoner', messages });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(
      'Missing reasoning_content field in the assistant message at message index 1',
    );
  });

  it('injects faults: 429 with retry-after, a cut stream, malformed JSON and a hang', async () => {
    server = await startLoopbackProvider();
    server.enqueue(
      { type: 'http-error', status: 429, code: 'rate_limit_exceeded', headers: { 'retry-after': '2' } },
      { type: 'cut', turn: turn({ text: ['a', 'b', 'c'] }), afterEvents: 5 },
      { type: 'malformed', turn: turn({ text: 'x' }), afterEvents: 2 },
      { type: 'hang' },
    );
    const limited = await post('/responses', { input: [] });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');

    const cut = await post('/responses', { input: [] });
    await expect(cut.text()).rejects.toThrow();

    const malformed = await (await post('/responses', { input: [] })).text();
    expect(() => dataLines(malformed)).toThrow();

    const controller = new AbortController();
    const hung = await post('/responses', { input: [] }, controller.signal);
    const reading = hung.text();
    setTimeout(() => controller.abort(), 50);
    await expect(reading).rejects.toThrow();
  });

  it('fails loudly when a test forgot to script a reply', async () => {
    server = await startLoopbackProvider();
    const response = await post('/responses', { input: [] });
    expect(response.status).toBe(500);
    expect(await response.text()).toContain('no scripted reply for request 1');
  });
});
