import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

/*
 * The processes one command started, including those that left its process group. A `setsid`
 * child has a session and a group of its own, and once its parent exits it belongs to init, so
 * neither its group nor its parent leads back to the command. What it keeps is its environment,
 * where every command gets a marker variable most programs pass on. Read from the Linux process
 * table (/proc); where there is none, nothing outside the group can be found and the report
 * says so.
 */

/** The environment variable that marks every process a command starts; its value is unique per command. */
export const COMMAND_MARKER_VARIABLE = 'FORGE_COMMAND_ID';

/** Rounds of "find what is left, kill it" after the command ended, for processes that fork while being stopped. */
const SWEEP_ROUNDS = 5;
const SWEEP_PAUSE_MS = 50;

/** What became of the processes a command started outside its own process group. */
export interface StrayProcesses {
  /** False when this system has no process table Forge can read: such processes cannot be found. */
  readonly tracked: boolean;
  /** How many were found outside the group and killed. */
  readonly stopped: number;
  /** Ids of those still running after being killed (another user's, or started while being stopped). */
  readonly stillRunning: readonly number[];
}

interface ProcessEntry {
  readonly pid: number;
  readonly parent: number;
  readonly group: number;
  readonly session: number;
  readonly zombie: boolean;
}

/** Fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses. */
function parseStat(pid: number, stat: string): ProcessEntry | undefined {
  const [state, parent, group, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (state === undefined || parent === undefined || group === undefined || session === undefined) return undefined;
  return {
    pid,
    parent: Number(parent),
    group: Number(group),
    session: Number(session),
    zombie: state === 'Z' || state === 'X',
  };
}

async function readEntry(pid: number): Promise<ProcessEntry | undefined> {
  try {
    return parseStat(pid, await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Whether the environment of `pid` holds `marker` (`NAME=value`). Another user's processes cannot be read and never carry it. */
async function carriesMarker(pid: number, marker: string): Promise<boolean> {
  try {
    return (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0').includes(marker);
  } catch {
    return false;
  }
}

/** Sends `signal` to each process. One that cannot be signalled (gone, or another user's) is found again by the next look. */
function signalEach(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already, or not ours to signal.
    }
  }
}

/** Signals a whole process group; a group that is already gone is not an error. */
function signalGroup(leader: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-leader, signal);
  } catch {
    // The group is already gone.
  }
}

/** The processes of one command: the group its leader heads, and whatever carries its marker or descends from a member. */
export class CommandProcesses {
  private readonly marker: string;
  private readonly outside = new Set<number>();
  private tracked = true;

  /** `leader`: the command's process, which heads its own session and group; `id`: its marker value. */
  constructor(
    private readonly leader: number,
    id: string,
  ) {
    this.marker = `${COMMAND_MARKER_VARIABLE}=${id}`;
  }

  /** Live members, Forge's own process never among them; `undefined` without a process table. */
  private async members(): Promise<ProcessEntry[] | undefined> {
    let names: string[];
    try {
      names = await readdir('/proc');
    } catch {
      return undefined;
    }
    const entries = (
      await Promise.all(
        names
          .filter((name) => /^\d+$/.test(name))
          .map(Number)
          .filter((pid) => pid !== process.pid)
          .map(readEntry),
      )
    ).filter((entry) => entry !== undefined);
    if (entries.length === 0) return undefined;
    const belongs = new Set<number>();
    await Promise.all(
      entries.map(async (entry) => {
        if (entry.pid === this.leader || entry.session === this.leader || (await carriesMarker(entry.pid, this.marker)))
          belongs.add(entry.pid);
      }),
    );
    // Children of a member are members too, even when they cleared their environment.
    for (let grew = true; grew;) {
      grew = false;
      for (const entry of entries) {
        if (!belongs.has(entry.pid) && belongs.has(entry.parent)) {
          belongs.add(entry.pid);
          grew = true;
        }
      }
    }
    return entries.filter((entry) => belongs.has(entry.pid) && !entry.zombie);
  }

  /** Signals the group and every member outside it. Looks for members first, while the leader's children still lead back to it. */
  async signal(signal: NodeJS.Signals): Promise<void> {
    const members = await this.members();
    if (members === undefined) this.tracked = false;
    const strays = (members ?? []).filter((entry) => entry.group !== this.leader).map((entry) => entry.pid);
    for (const pid of strays) this.outside.add(pid);
    signalGroup(this.leader, signal);
    signalEach(strays, signal);
  }

  /** After the leader has exited: kills everything left of the command until nothing is found, and reports what was outside the group. */
  async sweep(): Promise<StrayProcesses> {
    signalGroup(this.leader, 'SIGKILL');
    let left = await this.members();
    for (let round = 0; left !== undefined && left.length > 0 && round < SWEEP_ROUNDS; round += 1) {
      for (const entry of left) if (entry.group !== this.leader) this.outside.add(entry.pid);
      signalGroup(this.leader, 'SIGKILL');
      signalEach(
        left.map((entry) => entry.pid),
        'SIGKILL',
      );
      await delay(SWEEP_PAUSE_MS);
      left = await this.members();
    }
    if (left === undefined) this.tracked = false;
    const stillRunning = (left ?? []).map((entry) => entry.pid).sort((a, b) => a - b);
    return {
      tracked: this.tracked,
      stopped: [...this.outside].filter((pid) => !stillRunning.includes(pid)).length,
      stillRunning,
    };
  }
}
