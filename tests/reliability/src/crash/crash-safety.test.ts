import { spawn } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInstructionSnapshot, findUnpairedToolCalls, hashMessages, type Message } from '@forge/core';
import { validateCheckpoint, withRunIds, type ContextCheckpoint } from '@forge/core/checkpoint';
import { checkpointHash } from '@forge/core/checkpoint';
import { checkpointMatchesTranscript } from '@forge/core/internals';
import { ScriptedModel } from '@forge/core/testing';
import {
  createSession,
  listSessions,
  loadTranscript,
  MAIN_LANE,
  OpaqueStateStore,
  readTrace,
} from '@forge/persistence';
import { runSessionTurn } from '@forge/sessions';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { reportCounts, RELIABILITY_SEED, runSize, suiteTimeoutMs } from '../support/run-size.js';
import { randomIndex, seededRandom } from '../support/seeded-random.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';
import { CRASH_OPAQUE_TARGET, parseCrashAck, type CrashAck } from './crash-protocol.js';

/*
 * Issue 10, point 1: a child process continues a real session (turns with tool calls through
 * runTurn, traces, checkpoints, persisted opaque state) and is SIGKILLed at seeded random moments.
 * After every kill the session must load, hold an intact prefix of everything acknowledged, have
 * no half-installed checkpoint or opaque state current, leave nothing a later load trips on, and
 * the next child must resume it.
 */

const LANES = runSize(3, 4);
const KILLS_PER_LANE = runSize(10, 55);
const temporaryDirectory = useTemporaryDirectories();
let childScript = '';

beforeAll(async () => {
  const directory = await temporaryDirectory('crash-bundle');
  childScript = join(directory, 'crash-child.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, 'crash-child.ts')],
    outfile: childScript,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@forge/source'],
    logLevel: 'silent',
  });
});

/** When to kill: `delayMs` after the child's `afterAcks`-th acknowledgement (0: after `ready`). */
interface KillMoment {
  readonly afterAcks: number;
  readonly delayMs: number;
}

interface ChildLife {
  readonly acks: readonly CrashAck[];
  readonly stderr: string;
}

function runAndKill(
  home: string,
  sessionId: string,
  workspace: string,
  seed: number,
  moment: KillMoment,
): Promise<ChildLife> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [childScript, home, sessionId, workspace, String(seed)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acks: CrashAck[] = [];
    let scheduled = false;
    let buffered = '';
    let stderr = '';
    const schedule = () => {
      if (scheduled) return;
      scheduled = true;
      setTimeout(() => child.kill('SIGKILL'), moment.delayMs);
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const ack = parseCrashAck(line);
        if (ack === undefined) continue;
        acks.push(ack);
        if (acks.length > moment.afterAcks) schedule();
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL')
        reject(new Error(`The crash child exited on its own (code ${code}) instead of being killed:\n${stderr}`));
      else resolve({ acks, stderr });
    });
  });
}

/** Files a crash can leave behind: hidden session build directories and atomic-write temporaries. */
async function leftoverTemporaries(home: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (directory: string): Promise<void> => {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (
        entry.name.startsWith('.') &&
        (entry.name.endsWith('.tmp') || /^\.(creating|migrating|discarding)-/.test(entry.name))
      )
        found.push(path);
      if (entry.isDirectory()) await walk(path);
    }
  };
  await walk(home);
  return found;
}

interface LaneState {
  messages: readonly Message[];
  checkpointHash: string | undefined;
  opaqueHash: string | undefined;
}

/** The hash a life left current, given what it acknowledged: the last acknowledged one, or one begun after it. */
function allowedAfterLife(
  acks: readonly CrashAck[],
  kind: 'checkpoint' | 'opaque',
  before: string | undefined,
): Set<string | undefined> {
  const allowed = new Set<string | undefined>([before]);
  for (const ack of acks) {
    if (ack.kind === 'checkpoint-skipped' && kind === 'checkpoint') allowed.delete('*');
    if (ack.kind === 'messages' || !('hash' in ack)) continue;
    if (ack.kind === kind) {
      allowed.clear();
      allowed.add(ack.hash);
    } else if (ack.kind === `${kind}-begin`) {
      allowed.add(ack.hash);
    }
  }
  return allowed;
}

async function checkAfterKill(
  home: string,
  sessionId: string,
  life: ChildLife,
  lane: LaneState,
): Promise<{ leftovers: number }> {
  const loaded = await loadTranscript(home, sessionId);

  // Nothing stored before this life changed, and every acknowledged message is there, byte for byte.
  expect(JSON.stringify(loaded.messages.slice(0, lane.messages.length))).toBe(JSON.stringify(lane.messages));
  const lastMessages = life.acks.findLast(
    (ack): ack is Extract<CrashAck, { kind: 'messages' }> => ack.kind === 'messages',
  );
  if (lastMessages !== undefined) {
    expect(loaded.messages.length).toBeGreaterThanOrEqual(lastMessages.count);
    expect(hashMessages(loaded.messages.slice(0, lastMessages.count))).toBe(lastMessages.hash);
  }

  // The current checkpoint is whole, valid for this transcript, and the last acknowledged one or one begun after it.
  const allowedCheckpoints = allowedAfterLife(life.acks, 'checkpoint', lane.checkpointHash);
  const current = loaded.checkpoint;
  const currentHash =
    current === undefined ? undefined : checkpointHash(current.checkpoint as unknown as ContextCheckpoint);
  // `*`: a compaction was under way; whatever it left current must still be whole and valid (checked below).
  expect(allowedCheckpoints.has(currentHash) || allowedCheckpoints.has('*')).toBe(true);
  if (current !== undefined) {
    const validation = validateCheckpoint(current.checkpoint, loaded.messages.length);
    expect(validation.ok ? [] : validation.errors).toEqual([]);
    if (validation.ok)
      expect(checkpointMatchesTranscript(validation.checkpoint, withRunIds(loaded.messages, loaded.runs))).toBe(true);
  }

  // Opaque state: the last acknowledged state or the one being written, never a torn file.
  const store = new OpaqueStateStore({ directory: join(home, 'state', 'native-compaction'), persist: true });
  const replay = await store.forReplay({ sessionId, lane: MAIN_LANE }, CRASH_OPAQUE_TARGET);
  const opaqueHash = replay.kind === 'replay' ? replay.state.itemHash : undefined;
  expect(replay.kind === 'skip').toBe(false);
  expect(allowedAfterLife(life.acks, 'opaque', lane.opaqueHash).has(opaqueHash)).toBe(true);

  // Every trace reads to its end; only its last line may be torn.
  for (const run of loaded.runs) {
    const entries = [];
    for await (const entry of readTrace(home, run.runId)) entries.push(entry);
    const torn = entries.findIndex((entry) => entry.kind === 'torn');
    expect(torn === -1 || torn === entries.length - 1).toBe(true);
  }

  // Whatever a crash left behind, listing and loading do not trip on it.
  const listed = await listSessions(home);
  expect(listed.filter((summary) => summary.problem !== undefined)).toEqual([]);
  const leftovers = await leftoverTemporaries(home);

  lane.messages = loaded.messages;
  lane.checkpointHash = currentHash;
  lane.opaqueHash = opaqueHash;
  return { leftovers: leftovers.length };
}

describe('crash safety under SIGKILL', () => {
  it(
    `keeps every acknowledged turn, checkpoint and opaque state through ${LANES * KILLS_PER_LANE} kills, and resumes`,
    async () => {
      const next = seededRandom(RELIABILITY_SEED);
      const plans = Array.from({ length: LANES }, (_, lane) => ({
        sessionId: `crash_lane_${lane}`,
        seeds: Array.from({ length: KILLS_PER_LANE }, () => randomIndex(next, 2 ** 31)),
        moments: Array.from({ length: KILLS_PER_LANE }, (): KillMoment => ({
          afterAcks: randomIndex(next, 14),
          delayMs: randomIndex(next, 25),
        })),
      }));

      const results = await Promise.all(
        plans.map(async (plan) => {
          const home = await temporaryDirectory('crash-home');
          const workspace = await temporaryDirectory('crash-workspace');
          await writeFile(join(workspace, 'notes.txt'), 'The build uses pnpm.\nThe flaky test is parser.test.ts.\n');
          const writer = await createSession(home, { workspaceRoot: workspace, id: plan.sessionId });
          await writer.close();
          const lane: LaneState = { messages: [], checkpointHash: undefined, opaqueHash: undefined };
          let survived = 0;
          let leftovers = 0;
          let acknowledged = 0;
          let checkpoints = 0;
          let compactionsSkipped = 0;
          for (const [index, moment] of plan.moments.entries()) {
            const life = await runAndKill(home, plan.sessionId, workspace, plan.seeds[index] ?? 0, moment);
            const after = await checkAfterKill(home, plan.sessionId, life, lane);
            survived += 1;
            leftovers = after.leftovers;
            acknowledged += life.acks.length;
            checkpoints += life.acks.filter((ack) => ack.kind === 'checkpoint').length;
            compactionsSkipped += life.acks.filter((ack) => ack.kind === 'checkpoint-skipped').length;
          }

          // Resuming after the last kill: a new turn completes and pairs every tool call. How long
          // the session grew depends on how fast the children ran before their kills, so the turn
          // runs in mode compact, which makes room instead of stopping when it no longer fits.
          const model = new ScriptedModel([{ text: 'Resumed and answered.' }]);
          const turn = await runSessionTurn({
            home,
            sessionId: plan.sessionId,
            model,
            request: 'Are you still there?',
            instructions: createInstructionSnapshot('You are the crash-safety test agent.'),
            context: { mode: 'compact', recentTailTokens: 6_000 },
          });
          expect(turn.result.status).toBe('completed');
          const final = await loadTranscript(home, plan.sessionId);
          expect(JSON.stringify(final.messages.slice(0, lane.messages.length))).toBe(JSON.stringify(lane.messages));
          expect(final.messages.at(-1)).toEqual({
            role: 'assistant',
            content: [{ type: 'text', text: 'Resumed and answered.' }],
          });
          expect(findUnpairedToolCalls(final.messages)).toEqual([]);
          expect(final.runs.every((run) => run.status !== undefined)).toBe(true);
          // Discarding the conversation's opaque state also removes what killed writes left of it.
          await new OpaqueStateStore({ directory: join(home, 'state', 'native-compaction'), persist: true }).discard({
            sessionId: plan.sessionId,
            lane: MAIN_LANE,
          });
          expect(await leftoverTemporaries(home)).toEqual([]);
          return {
            survived,
            leftovers,
            acknowledged,
            checkpoints,
            compactionsSkipped,
            messages: final.messages.length,
            runs: final.runs.length,
          };
        }),
      );

      const kills = LANES * KILLS_PER_LANE;
      const survived = results.reduce((sum, result) => sum + result.survived, 0);
      reportCounts('crash-safety', {
        kills,
        survived,
        acknowledgements: results.reduce((sum, result) => sum + result.acknowledged, 0),
        checkpointsInstalled: results.reduce((sum, result) => sum + result.checkpoints, 0),
        compactionsSkipped: results.reduce((sum, result) => sum + result.compactionsSkipped, 0),
        messages: results.reduce((sum, result) => sum + result.messages, 0),
        runs: results.reduce((sum, result) => sum + result.runs, 0),
        temporariesAfterLastKill: results.reduce((sum, result) => sum + result.leftovers, 0),
      });
      expect(survived).toBe(kills);
    },
    suiteTimeoutMs(80_000),
  );
});
