import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChildScript } from './child-script.test-helpers.js';
import { killTestMessage } from './kill-turns.test-helpers.js';
import { createSession } from './session-open.js';
import { loadTranscript } from './session-read.js';

/*
 * Crash safety under real process death: children append to a session and are SIGKILLed at
 * seeded random moments; after every kill the session must load, hold an intact prefix of the
 * intended messages, and contain every message the child acknowledged.
 */

const LANES = 5;
const KILLS_PER_LANE = 10;
const SEED = 20250601;

let workDirectory = '';
let childScript = '';

beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), 'forge-kill-'));
  childScript = await bundleChildScript('kill-child.test-helpers.ts', workDirectory);
});

afterAll(async () => {
  await rm(workDirectory, { recursive: true, force: true });
});

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

interface KillOutcome {
  readonly acknowledged: number;
  readonly stderr: string;
}

/** When to kill a child: `delayMs` after it is ready, or after its first acknowledged append. */
interface KillMoment {
  readonly after: 'ready' | 'first-ack';
  readonly delayMs: number;
}

/** Runs one child, kills it at `moment`, and returns the last count it acknowledged. */
function runAndKill(home: string, id: string, moment: KillMoment): Promise<KillOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [childScript, home, id], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acknowledged = -1;
    let killScheduled = false;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const lines = stdout.split('\n');
      stdout = lines.pop() ?? '';
      for (const line of lines) {
        const [word, count] = line.split(' ');
        const killNow =
          (word === 'ready' && moment.after === 'ready') ||
          (word === 'ack' && moment.after === 'first-ack' && !killScheduled);
        if (word === 'ready' || word === 'ack') acknowledged = Number(count);
        if (killNow) {
          killScheduled = true;
          setTimeout(() => child.kill('SIGKILL'), moment.delayMs);
        }
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`The child exited on its own (code ${code}): ${stderr}`));
      else resolve({ acknowledged, stderr });
    });
  });
}

describe('appending while being killed', () => {
  it(`keeps every acknowledged message through ${LANES * KILLS_PER_LANE} SIGKILLs`, async () => {
    const next = random(SEED);
    const home = join(workDirectory, 'home');
    const plans = Array.from({ length: LANES }, (_, lane) => ({
      id: `kill_lane_${lane}`,
      moments: Array.from({ length: KILLS_PER_LANE }, (): KillMoment =>
        next() < 0.25
          ? { after: 'ready', delayMs: Math.floor(next() * 5) }
          : { after: 'first-ack', delayMs: Math.floor(next() * 30) },
      ),
    }));

    const laneResults = await Promise.all(
      plans.map(async ({ id, moments }) => {
        const writer = await createSession(home, { workspaceRoot: null, id });
        await writer.close();
        const counts: number[] = [];
        for (const moment of moments) {
          const { acknowledged } = await runAndKill(home, id, moment);
          const loaded = await loadTranscript(home, id);
          expect(acknowledged).toBeGreaterThanOrEqual(0);
          expect(loaded.messages.length).toBeGreaterThanOrEqual(acknowledged);
          const firstWrong = loaded.messages.findIndex(
            (message, index) => JSON.stringify(message) !== JSON.stringify(killTestMessage(index)),
          );
          expect(firstWrong).toBe(-1);
          counts.push(loaded.messages.length);
        }
        return counts;
      }),
    );
    const kills = laneResults.flat();
    expect(kills).toHaveLength(LANES * KILLS_PER_LANE);
    expect(kills.at(-1)).toBeGreaterThan(0);
  }, 60_000);
});
