import type { ServerResponse } from 'node:http';

export interface SseEvent {
  /** The `event:` line (Responses API); omitted for Chat Completions. */
  readonly event?: string;
  /** Serialized as JSON unless it is already a string. */
  readonly data: unknown;
}

/** How a stream ends: normally, cut mid-event, with a malformed event, or never. */
export type StreamEnding =
  | { readonly kind: 'complete' }
  | { readonly kind: 'cut'; readonly afterEvents: number }
  | { readonly kind: 'malformed'; readonly afterEvents: number }
  | { readonly kind: 'hang'; readonly afterEvents: number };

function encode(event: SseEvent): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  return `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${data}\n\n`;
}

export function writeSseHeaders(response: ServerResponse): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  response.flushHeaders();
}

const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Writes `events` as server-sent events, one write per event so the client sees real streaming,
 * and ends the stream as `ending` says. A cut destroys the socket halfway through an event.
 */
export async function writeSse(
  response: ServerResponse,
  events: readonly SseEvent[],
  ending: StreamEnding,
): Promise<void> {
  const limit = ending.kind === 'complete' ? events.length : Math.min(ending.afterEvents, events.length);
  for (const event of events.slice(0, limit)) {
    if (response.destroyed) return;
    response.write(encode(event));
    await pause();
  }
  switch (ending.kind) {
    case 'complete':
      response.end();
      return;
    case 'cut': {
      const next = events[limit];
      const partial =
        next === undefined
          ? 'data: {"type":"resp'
          : encode(next).slice(0, Math.max(8, Math.floor(encode(next).length / 2)));
      response.write(partial);
      await pause();
      response.socket?.destroy();
      response.destroy();
      return;
    }
    case 'malformed':
      response.write('data: {"type": "response.output_text.delta", "delta": "unterminated\n\n');
      response.end();
      return;
    case 'hang':
      return;
  }
}
