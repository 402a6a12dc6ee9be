import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { COMMAND_MARKER_VARIABLE, CommandProcesses, type StrayProcesses } from './command-processes.js';
import { createCommandSandbox, type CommandSandbox } from './sandbox/command-sandbox.js';
import type { SandboxEscape } from './sandbox/sandbox-settings.js';

export interface RunProcessOptions {
  readonly argv: readonly [string, ...string[]];
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Most bytes of combined stdout/stderr kept: the first half and the last half of the output. */
  readonly outputCapBytes: number;
  readonly signal: AbortSignal;
  /** Time between SIGTERM and SIGKILL when stopping the process group (default 2000 ms). */
  readonly killGraceMs?: number;
  /** How long to wait for the output pipes to close once the program has exited (default 1000 ms). */
  readonly drainMs?: number;
  /**
   * Where the program runs and the environment it gets (default: no sandbox, Forge's environment
   * without secret-named variables).
   */
  readonly sandbox?: CommandSandbox;
  /** What this call was approved to leave the sandbox for. */
  readonly escape?: SandboxEscape;
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
  /** Processes the program started outside its process group (`setsid`), found and killed when it ended. */
  readonly strays: StrayProcesses;
  /**
   * The output pipes were still open `drainMs` after the program exited: a process Forge could
   * not find (one that left the group and cleared its environment) still holds them.
   */
  readonly pipesHeldOpen: boolean;
}

/**
 * Runs a program without a shell in a session and process group of its own, so a timeout or an
 * abort stops it together with everything it started. Every process it starts carries a marker
 * in its environment; when the program ends, whatever is left of it (in its group, its session,
 * or outside both) is killed, and the outcome says what was found and what may still run.
 * Rejects only when the program cannot be started (`ENOENT`, `EACCES`); every other ending is an
 * outcome.
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessOutcome> {
  const outcome = startProcess(options);
  unsettled.add(outcome);
  void outcome.catch(() => {}).finally(() => unsettled.delete(outcome));
  return outcome;
}

/** Commands of this process that have not ended yet, including cancelled ones still being stopped. */
const unsettled = new Set<Promise<ProcessOutcome>>();

/**
 * Resolves once every command this process started has ended and what it left running was
 * killed. A cancelled run is abandoned by the agent loop at once, while its command may take up
 * to the kill grace to stop: a caller about to exit, or to start the next turn, waits here.
 */
export async function waitForRunningCommands(): Promise<void> {
  while (unsettled.size > 0) await Promise.allSettled(unsettled);
}

let unconfined: CommandSandbox | undefined;

async function startProcess(options: RunProcessOptions): Promise<ProcessOutcome> {
  const started = performance.now();
  const sandbox = options.sandbox ?? (unconfined ??= createCommandSandbox({ root: '/', settings: { mode: 'off' } }));
  const launch = await sandbox.launch({
    argv: options.argv,
    cwd: options.cwd,
    ...(options.escape === undefined ? {} : { escape: options.escape }),
  });
  try {
    return await supervise(options, launch.argv, launch.env, started);
  } finally {
    await launch.release();
  }
}

function supervise(
  options: RunProcessOptions,
  argv: readonly [string, ...string[]],
  env: Readonly<Record<string, string>>,
  started: number,
): Promise<ProcessOutcome> {
  const [program, ...args] = argv;
  const output = new HeadTailBuffer(options.outputCapBytes);
  const killGraceMs = options.killGraceMs ?? 2000;
  const id = randomUUID();

  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd: options.cwd,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...env, [COMMAND_MARKER_VARIABLE]: id },
    });
    const processes = child.pid === undefined ? undefined : new CommandProcesses(child.pid, id);
    let timedOut = false;
    let cancelled = false;
    let pipesHeldOpen = false;
    let forceKill: NodeJS.Timeout | undefined;
    let drain: NodeJS.Timeout | undefined;
    let swept: Promise<StrayProcesses> | undefined;

    const stop = (): void => {
      if (processes === undefined || forceKill !== undefined) return;
      forceKill = setTimeout(() => void processes.signal('SIGKILL'), killGraceMs);
      void processes.signal('SIGTERM');
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
      // Whatever the program left running goes too; then stop waiting for pipes a process Forge
      // could not find may still hold open.
      swept = processes?.sweep();
      drain = setTimeout(() => {
        pipesHeldOpen = true;
        child.stdout.destroy();
        child.stderr.destroy();
      }, options.drainMs ?? 1000);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(drain);
      void (swept ?? Promise.resolve(untracked)).then((strays) => {
        cleanUp();
        resolve({
          exitCode,
          signal,
          timedOut,
          cancelled,
          durationMs: Math.round(performance.now() - started),
          output: output.text(),
          truncated: output.truncated,
          strays,
          pipesHeldOpen,
        });
      });
    });
    if (options.signal.aborted) onAbort();
  });
}

const untracked: StrayProcesses = { tracked: false, stopped: 0, stillRunning: [] };

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
