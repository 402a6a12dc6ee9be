import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/*
 * A real pseudo-terminal for tests: a private tmux server (its own socket in a temporary
 * directory, never the user's) running one command in a pane of a fixed size. Keys go in with
 * send-keys; the screen comes back with capture-pane.
 */

/** Makes sure tmux can be run, installing Debian's package as root if needed; throws a clear error otherwise. */
export function ensureTmux(): void {
  if (spawnSync('tmux', ['-V']).status === 0) return;
  const root = process.getuid?.() === 0;
  if (root) {
    spawnSync('apt-get', ['install', '-y', 'tmux'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (spawnSync('tmux', ['-V']).status === 0) return;
  }
  throw new Error(
    `The terminal tests need tmux and ${root ? "'apt-get install -y tmux' did not provide it" : 'it is not installed (not root, so it was not installed)'}; install tmux (Debian: apt-get install -y tmux) and run the tests again.`,
  );
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

export interface TerminalOptions {
  /** The program and its arguments. */
  readonly command: readonly string[];
  readonly cwd: string;
  /** The whole environment of the command (nothing else is inherited). */
  readonly env: Readonly<Record<string, string>>;
  readonly columns?: number;
  readonly rows?: number;
}

/** One command running in a tmux pane. Call `close()` when done (it ends the tmux server). */
export class TmuxTerminal {
  private readonly directory: string;
  private readonly socket: string;
  private closed = false;

  private constructor(directory: string) {
    this.directory = directory;
    this.socket = path.join(directory, 'tmux.sock');
  }

  /**
   * Starts `command` in a new pane. When it exits the pane prints `[exited <code>]` and stays, so
   * a test can read the exit code and the last screen.
   */
  static start(options: TerminalOptions): TmuxTerminal {
    const terminal = new TmuxTerminal(mkdtempSync(path.join(tmpdir(), 'forge-tmux-')));
    const environment = Object.entries(options.env).map(([name, value]) => `${name}=${value}`);
    const script = `${['env', '-i', ...environment, ...options.command].map(shellQuote).join(' ')}; echo "[exited $?]"; sleep 3600`;
    terminal.tmux([
      'new-session',
      '-d',
      '-s',
      'forge',
      '-x',
      String(options.columns ?? 120),
      '-y',
      String(options.rows ?? 50),
      '-c',
      options.cwd,
      'sh',
      '-c',
      script,
    ]);
    terminal.tmux(['set-option', '-t', 'forge', 'history-limit', '10000']);
    return terminal;
  }

  private tmux(args: readonly string[]): string {
    return execFileSync('tmux', ['-S', this.socket, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', TERM: 'xterm-256color' },
    });
  }

  /** Types `text` literally (no key names interpreted). */
  type(text: string): void {
    this.tmux(['send-keys', '-t', 'forge', '-l', text]);
  }

  /** Presses keys by tmux name: `Enter`, `C-c`, `Tab`, `Up`. */
  press(...keys: readonly string[]): void {
    this.tmux(['send-keys', '-t', 'forge', ...keys]);
  }

  /** Types `text` and presses Enter. */
  enter(text: string): void {
    this.type(text);
    this.press('Enter');
  }

  /** Resizes the terminal, as dragging its window does: the program gets SIGWINCH. */
  resize(columns: number, rows = 50): void {
    this.tmux(['resize-window', '-t', 'forge', '-x', String(columns), '-y', String(rows)]);
  }

  /**
   * The whole scrollback and screen as text; with `escapes`, colours as escape codes. Lines the
   * terminal wrapped are joined unless `rows` asks for the rows as they are shown.
   */
  screen(options: { readonly escapes?: boolean; readonly rows?: boolean } = {}): string {
    return this.tmux([
      'capture-pane',
      '-p',
      ...(options.rows === true ? [] : ['-J']),
      '-S',
      '-',
      '-t',
      'forge',
      ...(options.escapes === true ? ['-e'] : []),
    ]);
  }

  /** Polls the screen until `done` holds; fails with the screen after `timeoutMs`. */
  async waitFor(done: (screen: string) => boolean, timeoutMs = 10_000, what = 'the expected output'): Promise<string> {
    const started = Date.now();
    for (;;) {
      const screen = this.screen();
      if (done(screen)) return screen;
      if (Date.now() - started > timeoutMs)
        throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}; the terminal shows:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits for the command to exit and returns its exit code. */
  async exitCode(timeoutMs = 10_000): Promise<number> {
    const screen = await this.waitFor((text) => /\[exited \d+\]/.test(text), timeoutMs, 'the command to exit');
    return Number(/\[exited (\d+)\]/.exec(screen)?.[1]);
  }

  /** Ends the tmux server and everything running in it. Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.tmux(['kill-server']);
    } catch {
      // The server has already gone.
    }
    rmSync(this.directory, { recursive: true, force: true });
  }
}
