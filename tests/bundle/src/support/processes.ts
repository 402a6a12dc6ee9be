import { readdirSync, readFileSync } from 'node:fs';

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces); undefined once the process is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs; a zombie, which only waits to be reaped, counts as gone. */
export function isAlive(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** The parent of `pid`. */
export function parentOf(pid: number): number | undefined {
  const parent = statFields(pid)?.[1];
  return parent === undefined ? undefined : Number(parent);
}

/** The pid of `pid` in the innermost PID namespace it belongs to (the last `NSpid` field); undefined once it is gone. */
function innermostPid(pid: number): number | undefined {
  try {
    const line = /^NSpid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return line === undefined ? undefined : Number(line.trim().split(/\s+/).at(-1));
  } catch {
    return undefined;
  }
}

/**
 * The host pid of a live process that calls itself `namespacePid` (its `$$`) and whose command
 * line holds `word`. A command in the sandbox has a PID namespace of its own, so the pids it
 * writes are not the host's; the word tells it from the sandbox processes around it.
 */
export function hostPidOf(namespacePid: number, word: string): number | undefined {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .find((pid) => {
      try {
        return pid !== process.pid && isAlive(pid) && innermostPid(pid) === namespacePid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(word);
      } catch {
        return false;
      }
    });
}

/** The parents of `pid`, nearest first, up to init. */
export function ancestorsOf(pid: number): number[] {
  const found: number[] = [];
  for (let parent = parentOf(pid); parent !== undefined && parent > 1; parent = parentOf(parent)) found.push(parent);
  return found;
}

/** Live child processes of `pid`. */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((candidate) => parentOf(candidate) === pid && isAlive(candidate));
}

/** Polls `condition` every 50 ms; throws naming `what` after `timeoutMs`. */
export async function poll(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
