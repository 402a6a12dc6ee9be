import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/*
 * The stdio transport's read buffer, replaced: the SDK's joins every chunk onto what it holds
 * (quadratic: a 50 MB result took over a minute) and ends the session on a message above its
 * limit, so one huge tool result lost the server for the rest of the run. This one keeps the
 * chunks of the line in progress and joins them once; a line above `maxBytes` is dropped as it
 * streams, and the request it answered gets an error instead, the session going on.
 */

/** How much of a dropped line is kept to find the id of the request it answered. */
const HEAD_BYTES = 256;

export class MessageBuffer {
  private readonly maxBytes: number;
  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while a line over `maxBytes` is being dropped: its start, and how long it has grown. */
  private dropping: { head: Buffer; bytes: number } | undefined;
  private readonly ready: JSONRPCMessage[] = [];

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  append(chunk: Buffer): void {
    let rest = chunk;
    for (let newline = rest.indexOf(10); newline !== -1; newline = rest.indexOf(10)) {
      this.take(rest.subarray(0, newline));
      this.endLine();
      rest = rest.subarray(newline + 1);
    }
    if (rest.length > 0) this.take(rest);
  }

  readMessage(): JSONRPCMessage | null {
    const next = this.ready.shift();
    if (next !== undefined) return next;
    return null;
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.dropping = undefined;
  }

  private take(piece: Buffer): void {
    if (this.dropping !== undefined) {
      this.dropping.bytes += piece.length;
      return;
    }
    this.chunks.push(piece);
    this.size += piece.length;
    if (this.size > this.maxBytes) {
      const whole = Buffer.concat(this.chunks);
      this.dropping = { head: whole.subarray(0, HEAD_BYTES), bytes: whole.length };
      this.chunks = [];
      this.size = 0;
    }
  }

  private endLine(): void {
    if (this.dropping !== undefined) {
      const { head, bytes } = this.dropping;
      this.dropping = undefined;
      const answered = /"id"\s*:\s*(\d+|"(?:[^"\\]|\\.)*")/.exec(head.toString('utf8'))?.[1];
      if (answered === undefined) return;
      this.ready.push({
        jsonrpc: '2.0',
        id: JSON.parse(answered) as string | number,
        error: {
          code: -32603,
          message: `The server's answer was ${Math.ceil(bytes / (1024 * 1024))} MiB, more than the ${Math.ceil(this.maxBytes / (1024 * 1024))} MiB Forge reads from an MCP server; it was dropped.`,
        },
      });
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.length === 0) return;
    // A line that is not a protocol message is the server's stray output: skipped, as the SDK's buffer does (through onerror).
    try {
      this.ready.push(deserializeMessage(line));
    } catch {
      // Not JSON-RPC.
    }
  }
}
