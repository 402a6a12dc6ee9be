import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A port nobody listens on right now, on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port was assigned');
  return address.port;
}

/** A server process started for a test; `output` is what it printed so far. */
export interface ServerProcess {
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `node <args>` and waits until its output matches `ready` (or fails with the output after 20 s). */
export async function startServerProcess(
  args: readonly string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = Date.now();
  while (!ready.test(output)) {
    if (child.exitCode !== null || Date.now() - started > 20_000) {
      child.kill('SIGKILL');
      throw new Error(`the server ${args.join(' ')} did not become ready; its output:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
