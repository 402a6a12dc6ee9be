import { Worker } from 'node:worker_threads';

/*
 * Matching lines for `search`. Literal text is matched in place: an escaped pattern runs in time
 * linear in the line. A model-chosen regular expression can take exponential time on one line
 * (`(a+)+$` against many `a`s and a `b`), and JavaScript cannot interrupt a running match, so it
 * runs in a worker thread: the main thread stays free to answer Ctrl-C, and the worker is ended
 * when the search's time bound is spent or the run is cancelled. JavaScript's own engine keeps the
 * syntax the tool promises (lookbehind, backreferences, named groups), which a linear-time engine
 * such as RE2 would refuse.
 */

/** A matching line: its 0-based index in the file and its text. */
export interface LineMatch {
  readonly index: number;
  readonly line: string;
}

/** The matching lines of one file, or `timed-out` when the time bound ran out before they were found. */
export type FileMatches =
  | { readonly kind: 'matched'; readonly lines: readonly LineMatch[] }
  | { readonly kind: 'timed-out' };

export interface LineMatcher {
  /** The first `limit` lines of `text` that match. Rejects with the signal's reason once it aborts. */
  match(text: string, limit: number): Promise<FileMatches>;
  /** Ends the worker, if there is one. */
  close(): Promise<void>;
}

function matchLines(matcher: RegExp, text: string, limit: number): LineMatch[] {
  const found: LineMatch[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length && found.length < limit; index += 1) {
    const line = lines[index] as string;
    if (matcher.test(line)) found.push({ index, line });
  }
  return found;
}

/** Matches on the calling thread; for patterns that run in linear time (escaped literal text). */
export function inlineMatcher(matcher: RegExp): LineMatcher {
  return {
    match: async (text, limit) => ({ kind: 'matched', lines: matchLines(matcher, text, limit) }),
    close: async () => {},
  };
}

/** The worker's code, run with `eval` so the bundled CLI needs no separate file. It keeps the last pattern compiled. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const matchLines = ${matchLines.toString()};
let compiled;
parentPort.on('message', ({ source, flags, text, limit }) => {
  if (compiled === undefined || compiled.source !== source || compiled.flags !== flags) compiled = new RegExp(source, flags);
  parentPort.postMessage(matchLines(compiled, text, limit));
});
`;

/** Settles with `work`, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

interface StartedWorker {
  readonly worker: Worker;
  /** Resolves once the worker runs: the time it takes to start is not matching time. */
  readonly online: Promise<void>;
}

function startWorker(): StartedWorker {
  const worker = new Worker(WORKER_SOURCE, { eval: true });
  const online = new Promise<void>((resolve, reject) => {
    worker.once('online', () => resolve());
    worker.once('error', reject);
  });
  online.catch(() => {});
  return { worker, online };
}

/**
 * The worker threads of one search tool: one is kept between searches so a search does not pay
 * for starting it; a search that must end its worker (time bound, cancellation) ends only its own,
 * and one that finds the kept worker busy gets a worker of its own.
 */
export class RegexWorkers {
  private kept: StartedWorker | undefined;
  private busy = false;

  /** A matcher for one search, with `timeLimitMs` of matching time in all; once spent, every `match` answers `timed-out`. */
  matcher(matcher: RegExp, options: { readonly timeLimitMs: number; readonly signal: AbortSignal }): LineMatcher {
    const own = this.busy || this.kept === undefined ? startWorker() : this.kept;
    const shared = !this.busy;
    if (shared) {
      this.kept = own;
      this.busy = true;
    }
    const { worker, online } = own;
    // Held while a search uses it (its ending too); an idle worker kept for later must not keep Forge from exiting.
    worker.ref();
    let remainingMs = options.timeLimitMs;
    let done = false;
    const release = async (terminate: boolean) => {
      if (done) return;
      done = true;
      if (shared) {
        this.busy = false;
        if (terminate) this.kept = undefined;
      }
      if (terminate || !shared) await worker.terminate();
      else worker.unref();
    };

    const matchOnce = (text: string, limit: number): Promise<FileMatches> => {
      const started = performance.now();
      return new Promise<FileMatches>((resolve, reject) => {
        const settle = (outcome: () => void) => {
          clearTimeout(timer);
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
          options.signal.removeEventListener('abort', onAbort);
          remainingMs -= performance.now() - started;
          outcome();
        };
        const onMessage = (lines: LineMatch[]) => settle(() => resolve({ kind: 'matched', lines }));
        const onError = (error: Error) => settle(() => void release(true).finally(() => reject(error)));
        const onExit = (code: number) =>
          settle(
            () => void release(true).finally(() => reject(new Error(`the search worker exited with code ${code}`))),
          );
        const onAbort = () => settle(() => void release(true).finally(() => reject(options.signal.reason)));
        const timer = setTimeout(
          () => settle(() => void release(true).finally(() => resolve({ kind: 'timed-out' }))),
          remainingMs,
        );
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', onExit);
        options.signal.addEventListener('abort', onAbort, { once: true });
        worker.postMessage({ source: matcher.source, flags: matcher.flags, text, limit });
      });
    };

    return {
      async match(text, limit) {
        if (done || remainingMs <= 0) return { kind: 'timed-out' };
        await untilAborted(online, options.signal);
        return matchOnce(text, limit);
      },
      close: () => release(false),
    };
  }
}
