import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { z } from 'zod';
import { CodexProtocolError } from '../errors.js';

/*
 * The App Server speaks JSON-RPC 2.0 without the `jsonrpc` member: one JSON object per line in
 * each direction. Requests carry an id; notifications do not; either side may send requests.
 */

export type RequestId = string | number;

const requestIdSchema = z.union([z.string(), z.number()]);

const responseSchema = z.object({
  id: requestIdSchema,
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
});

const incomingRequestSchema = z.object({ id: requestIdSchema, method: z.string(), params: z.unknown().optional() });
const notificationSchema = z.object({ method: z.string(), params: z.unknown().optional() });

/** A JSON-RPC error the client answers a server request with. */
export class JsonRpcReplyError extends Error {
  readonly rpcCode: number;

  constructor(rpcCode: number, message: string) {
    super(message);
    this.name = 'JsonRpcReplyError';
    this.rpcCode = rpcCode;
  }
}

export interface JsonRpcConnectionOptions {
  /** Lines from the server (the child's stdout). */
  readonly input: Readable;
  /** Where requests and replies are written (the child's stdin). */
  readonly output: Writable;
  readonly onNotification: (method: string, params: unknown) => void;
  /** Answers a request the server sent; throw `JsonRpcReplyError` to reply with an error. */
  readonly onRequest: (method: string, params: unknown, id: RequestId) => Promise<unknown>;
  /** Called for lines that are not protocol messages (never fatal). */
  readonly onStrayLine?: (line: string) => void;
}

interface PendingRequest {
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/** One JSON-RPC session over a pair of streams. Knows nothing about Codex methods. */
export class JsonRpcConnection {
  private readonly options: JsonRpcConnectionOptions;
  private readonly pending = new Map<RequestId, PendingRequest>();
  private nextId = 1;
  private closedWith: Error | undefined;

  constructor(options: JsonRpcConnectionOptions) {
    this.options = options;
    const lines = createInterface({ input: options.input, crlfDelay: Infinity });
    lines.on('line', (line) => this.receive(line));
  }

  /** Sends a request and resolves with its `result`; rejects with `CodexProtocolError` on an error reply. */
  request(method: string, params: unknown): Promise<unknown> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      this.write({ id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.closedWith !== undefined) return;
    this.write({ method, params });
  }

  /** Fails every pending request with `error`; later requests fail the same way. */
  close(error: Error): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  private write(message: Record<string, unknown>): void {
    this.options.output.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    if (line.trim().length === 0) return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.options.onStrayLine?.(line);
      return;
    }
    if (typeof message !== 'object' || message === null) {
      this.options.onStrayLine?.(line);
      return;
    }
    if ('method' in message) {
      const request = incomingRequestSchema.safeParse(message);
      if (request.success) {
        void this.answer(request.data.id, request.data.method, request.data.params);
        return;
      }
      const notification = notificationSchema.safeParse(message);
      if (notification.success) this.options.onNotification(notification.data.method, notification.data.params);
      else this.options.onStrayLine?.(line);
      return;
    }
    const response = responseSchema.safeParse(message);
    if (!response.success) {
      this.options.onStrayLine?.(line);
      return;
    }
    const pending = this.pending.get(response.data.id);
    if (pending === undefined) return;
    this.pending.delete(response.data.id);
    if (response.data.error !== undefined) {
      pending.reject(
        new CodexProtocolError({
          method: pending.method,
          rpcCode: response.data.error.code,
          message: `Codex App Server rejected ${pending.method}: ${response.data.error.message} (JSON-RPC error ${response.data.error.code}).`,
        }),
      );
    } else {
      pending.resolve(response.data.result);
    }
  }

  private async answer(id: RequestId, method: string, params: unknown): Promise<void> {
    try {
      const result = await this.options.onRequest(method, params, id);
      if (this.closedWith === undefined) this.write({ id, result });
    } catch (error) {
      if (this.closedWith !== undefined) return;
      const code = error instanceof JsonRpcReplyError ? error.rpcCode : -32603;
      const message = error instanceof Error ? error.message : String(error);
      this.write({ id, error: { code, message } });
    }
  }
}
