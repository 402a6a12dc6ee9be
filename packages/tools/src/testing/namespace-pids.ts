import { readdirSync, readFileSync } from 'node:fs';

function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** The pid of `pid` in the innermost PID namespace it belongs to (the last `NSpid` field). */
function innermostPid(pid: number): number | undefined {
  try {
    const line = /^NSpid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return line === undefined ? undefined : Number(line.trim().split(/\s+/).at(-1));
  } catch {
    return undefined;
  }
}

/**
 * The host pid of a running process that calls itself `namespacePid` (the `$$` or `process.pid` a
 * sandboxed command wrote) and whose command line holds `word`. A command in the sandbox has a PID
 * namespace of its own, so the pids it sees are not the host's; the word tells it from the
 * sandbox's own processes, whose command lines hold the whole command.
 */
export function hostPidOf(namespacePid: number, word: string): number | undefined {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .find((pid) => {
      try {
        return (
          pid !== process.pid &&
          isRunning(pid) &&
          innermostPid(pid) === namespacePid &&
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(word)
        );
      } catch {
        return false;
      }
    });
}
