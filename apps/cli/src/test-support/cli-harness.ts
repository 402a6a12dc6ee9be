import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { ModelAdapter } from '@forge/core';
import type { CliIo, TerminationSignal } from '../io.js';
import { main } from '../main.js';

// A forge ended together with its terminal may still be writing its session index for a moment.
const REMOVE_RETRYING = { recursive: true, force: true, maxRetries: 10, retryDelay: 100 } as const;

/** A writable stream that keeps everything written to it. */
export class CapturedOutput extends Writable {
  text = '';
  /** Set to pretend the stream is a terminal. */
  isTTY: boolean | undefined;

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** Streams, environment and a Ctrl-C trigger for driving `main` in process. */
export interface TestIo {
  readonly io: CliIo;
  readonly stdin: PassThrough;
  readonly stdout: CapturedOutput;
  readonly stderr: CapturedOutput;
  /** Delivers Ctrl-C as the signal handler would. */
  interrupt(): void;
  /** Delivers SIGTERM or SIGHUP as the signal handler would. */
  terminate(signal: TerminationSignal): void;
}

export function createTestIo(options: {
  readonly cwd: string;
  readonly env?: Record<string, string | undefined>;
  /** Models the test offers as `test:<name>`. */
  readonly models?: Readonly<Record<string, ModelAdapter>>;
}): TestIo {
  const stdin = new PassThrough();
  const stdout = new CapturedOutput();
  const stderr = new CapturedOutput();
  const listeners = new Set<() => void>();
  const terminationListeners = new Set<(signal: TerminationSignal) => void>();
  const models = options.models;
  const io: CliIo = {
    stdin,
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: options.cwd,
    onInterrupt: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onTerminate: (listener) => {
      terminationListeners.add(listener);
      return () => terminationListeners.delete(listener);
    },
    ...(models === undefined
      ? {}
      : {
          modelProviders: [
            {
              name: 'test',
              async create(modelId: string) {
                const model = models[modelId];
                if (model === undefined) throw new Error(`the test offers no model "${modelId}"`);
                return model;
              },
            },
          ],
        }),
  };
  return {
    io,
    stdin,
    stdout,
    stderr,
    interrupt: () => {
      for (const listener of listeners) listener();
    },
    terminate: (signal) => {
      for (const listener of terminationListeners) listener(signal);
    },
  };
}

export interface CliOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `forge <args>` in process with empty stdin. */
export async function runCli(
  args: readonly string[],
  options: Parameters<typeof createTestIo>[0],
): Promise<CliOutcome> {
  const test = createTestIo(options);
  test.stdin.end();
  const code = await main(['node', 'forge', ...args], test.io);
  return { code, stdout: test.stdout.text, stderr: test.stderr.text };
}

/** Resolves once `read()` satisfies `done`, polling; fails after `timeoutMs`. */
export async function waitFor(read: () => string, done: (text: string) => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!done(read())) {
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting; output so far:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A temporary directory removed by the returned function. */
export async function temporaryDirectory(
  prefix = 'forge-cli-',
): Promise<{ readonly path: string; remove(): Promise<void> }> {
  const directory = await mkdtemp(path.join(tmpdir(), prefix));
  return { path: directory, remove: () => rm(directory, REMOVE_RETRYING) };
}
