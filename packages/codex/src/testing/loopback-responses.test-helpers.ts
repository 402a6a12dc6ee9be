import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A small scripted OpenAI Responses server on 127.0.0.1 for driving the real Codex binary in
 * tests. Each POST /v1/responses takes the next scripted step and streams it as SSE ending in
 * `response.completed`. A request whose last input item is `compaction_trigger` (remote
 * compaction) is answered with one `compaction` item without consuming a step.
 */

export type ResponseOutputItem = Record<string, unknown>;

export interface ScriptedResponse {
  readonly items: readonly ResponseOutputItem[];
  readonly usage?: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly cachedTokens?: number;
    readonly reasoningTokens?: number;
  };
}

/** `hang`: the stream opens and never completes (until the client goes away), for interrupt tests. */
export type ScriptedStep = ScriptedResponse | { readonly hang: true };

export interface RecordedRequest {
  readonly body: { readonly input: readonly Record<string, unknown>[]; readonly [key: string]: unknown };
  /** `remote-compaction` when the last input item is a compaction trigger. */
  readonly kind: 'turn' | 'remote-compaction';
}

export interface LoopbackResponsesServer {
  /** `http://127.0.0.1:PORT/v1` */
  readonly baseUrl: string;
  readonly requests: readonly RecordedRequest[];
  /** Appends steps to the script. */
  push(...steps: ScriptedStep[]): void;
  /** Resolves when `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startLoopbackResponsesServer(
  steps: readonly ScriptedStep[] = [],
): Promise<LoopbackResponsesServer> {
  const script = [...steps];
  const requests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const openResponses = new Set<ServerResponse>();
  let responseNumber = 0;

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/responses') {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedRequest['body'];
      const last = body.input.at(-1);
      const kind = last?.['type'] === 'compaction_trigger' ? 'remote-compaction' : 'turn';
      requests.push({ body, kind });
      for (const waiter of waiters.filter((entry) => requests.length >= entry.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      responseNumber += 1;
      const step: ScriptedStep =
        kind === 'remote-compaction'
          ? {
              items: [
                {
                  type: 'compaction',
                  id: `cmp_${responseNumber}`,
                  encrypted_content: `opaque-compaction-${responseNumber}`,
                },
              ],
            }
          : (script.shift() ?? { items: [assistantMessage('Done.')] });
      stream(response, step, `resp_${responseNumber}`);
    });
  });

  const stream = (response: ServerResponse, step: ScriptedStep, id: string): void => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (event: Record<string, unknown>): void => {
      response.write(`event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`);
    };
    send({ type: 'response.created', response: { id } });
    if ('hang' in step) {
      openResponses.add(response);
      response.on('close', () => openResponses.delete(response));
      return;
    }
    step.items.forEach((item, index) => {
      send({ type: 'response.output_item.added', output_index: index, item });
      if (item['type'] === 'message') {
        const content = item['content'] as { text?: string }[];
        send({
          type: 'response.output_text.delta',
          item_id: item['id'],
          output_index: index,
          content_index: 0,
          delta: content[0]?.text ?? '',
        });
      }
      send({ type: 'response.output_item.done', output_index: index, item });
    });
    const usage = step.usage ?? { inputTokens: 1200, outputTokens: 40 };
    send({
      type: 'response.completed',
      response: {
        id,
        usage: {
          input_tokens: usage.inputTokens,
          input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
          output_tokens: usage.outputTokens,
          output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
          total_tokens: usage.inputTokens + usage.outputTokens,
        },
      },
    });
    response.end();
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...more) => script.push(...more),
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    close: async () => {
      for (const response of openResponses) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let itemNumber = 0;
const nextId = (prefix: string): string => `${prefix}_${++itemNumber}`;

export function assistantMessage(text: string): ResponseOutputItem {
  return {
    type: 'message',
    role: 'assistant',
    id: nextId('msg'),
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

export function reasoningItem(summary: string): ResponseOutputItem {
  return {
    type: 'reasoning',
    id: nextId('rs'),
    summary: [{ type: 'summary_text', text: summary }],
    encrypted_content: 'opaque-reasoning',
  };
}

/** A call of Codex's `exec_command` tool (no login shell, so the output is only the command's). */
export function execCommandCall(callId: string, command: string): ResponseOutputItem {
  return {
    type: 'function_call',
    id: nextId('fc'),
    call_id: callId,
    name: 'exec_command',
    arguments: JSON.stringify({ cmd: command, login: false }),
  };
}

/** A call of Codex's freeform `apply_patch` tool. */
export function applyPatchCall(callId: string, patch: string): ResponseOutputItem {
  return { type: 'custom_tool_call', id: nextId('ctc'), call_id: callId, name: 'apply_patch', input: patch };
}
