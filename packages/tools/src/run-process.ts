import { spawn } from 'node:child_process';

export interface RunProcessOptions {
  readonly argv: readonly [string, ...string[]];
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Most bytes of combined stdout/stderr kept: the first half and the last half of the output. */
  readonly outputCapBytes: number;
  readonly signal: AbortSignal;
  /** Time between SIGTERM and SIGKILL when stopping the process group (default 2000 ms). */
  readonly killGraceMs?: number;
}

export interface ProcessOutcome {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  readonly durationMs: number;
  /** Combined stdout and stderr in arrival order, with a marker where the middle was dropped. */
  readonly output: string;
  readonly truncated: boolean;
}

/**
 * Runs a program without a shell in its own process group, so a timeout or an abort can stop it
 * together with everything it started. Rejects only when the program cannot be started
 * (`ENOENT`, `EACCES`); every other ending is an outcome.
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessOutcome> {
  const [program, ...args] = options.argv;
  const started = performance.now();
  const output = new HeadTailBuffer(options.outputCapBytes);
  const killGraceMs = options.killGraceMs ?? 2000;

  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd: options.cwd, shell: false, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let timedOut = false;
    let cancelled = false;
    let forceKill: NodeJS.Timeout | undefined;
    let drain: NodeJS.Timeout | undefined;

    const stop = (): void => {
      killGroup(child.pid, 'SIGTERM');
      forceKill ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), killGraceMs);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      stop();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    const cleanUp = (): void => {
      clearTimeout(timer);
      clearTimeout(forceKill);
      clearTimeout(drain);
      options.signal.removeEventListener('abort', onAbort);
    };

    child.stdout.on('data', (chunk: Buffer) => output.append(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.append(chunk));
    child.on('error', (error) => {
      cleanUp();
      reject(error);
    });
    child.on('exit', () => {
      // Whatever the program left running in its group goes too; then stop waiting for pipes a
      // process outside the group may still hold open.
      killGroup(child.pid, 'SIGKILL');
      drain = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, 1000);
    });
    child.on('close', (exitCode, signal) => {
      cleanUp();
      resolve({
        exitCode,
        signal,
        timedOut,
        cancelled,
        durationMs: Math.round(performance.now() - started),
        output: output.text(),
        truncated: output.truncated,
      });
    });
    if (options.signal.aborted) onAbort();
  });
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Keeps the first and the last `capBytes / 2` bytes of a stream and counts what fell between. */
export class HeadTailBuffer {
  private readonly half: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private totalBytes = 0;

  constructor(capBytes: number) {
    this.half = Math.max(1, Math.floor(capBytes / 2));
  }

  append(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.half) {
      const taken = rest.subarray(0, this.half - this.headBytes);
      this.head.push(taken);
      this.headBytes += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes > this.half) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailBytes - this.half;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  get truncated(): boolean {
    return this.totalBytes > this.headBytes + this.tailBytes;
  }

  text(): string {
    if (!this.truncated) return Buffer.concat([...this.head, ...this.tail]).toString('utf8');
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    const omitted = this.totalBytes - this.headBytes - this.tailBytes;
    return `${head}\n[... ${omitted} bytes of output omitted ...]\n${tail}`;
  }
}
