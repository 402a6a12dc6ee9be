import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChildScript } from './child-script.test-helpers.js';
import {
  calibrationFilePath,
  MAX_CALIBRATED_MODELS,
  MAX_CALIBRATION_SAMPLES,
  readCalibration,
  recordCalibration,
} from './calibration-store.js';

let directory = '';
let childScript = '';

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'forge-calibration-'));
  childScript = await bundleChildScript('calibration-child.test-helpers.ts', directory);
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const home = async (name: string): Promise<string> => join(directory, name);

describe('calibration store', () => {
  it('keeps numbers only, 0600 in a 0700 FORGE_HOME, and a new counter starts a new history', async () => {
    const root = await home('modes');
    await recordCalibration(root, {
      model: 'compatible:local',
      counter: 'conservative',
      samples: [{ estimated: 130, reported: 100 }],
    });
    await recordCalibration(root, {
      model: 'compatible:local',
      counter: 'conservative',
      samples: [{ estimated: 125, reported: 100 }],
    });
    expect((await stat(calibrationFilePath(root))).mode & 0o777).toBe(0o600);
    expect((await stat(root)).mode & 0o777).toBe(0o700);
    const text = await readFile(calibrationFilePath(root), 'utf8');
    expect(JSON.parse(text)).toMatchObject({
      schemaVersion: 1,
      models: {
        'compatible:local': {
          counter: 'conservative',
          samples: [
            [130, 100],
            [125, 100],
          ],
        },
      },
    });
    const changed = await recordCalibration(root, {
      model: 'compatible:local',
      counter: 'qwen3',
      samples: [{ estimated: 100, reported: 100 }],
    });
    expect(changed.samples).toEqual([{ estimated: 100, reported: 100 }]);
    expect((await readdir(root)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('stays bounded: the newest samples of the most recently used models', async () => {
    const root = await home('bounded');
    const many = Array.from({ length: MAX_CALIBRATION_SAMPLES + 50 }, (_, index) => ({
      estimated: index + 1,
      reported: index + 2,
    }));
    const stored = await recordCalibration(root, { model: 'openai:gpt-5.1', counter: 'o200k_base', samples: many });
    expect(stored.samples).toHaveLength(MAX_CALIBRATION_SAMPLES);
    expect(stored.samples[0]).toEqual({ estimated: 51, reported: 52 });
    for (let index = 0; index < MAX_CALIBRATED_MODELS + 3; index += 1) {
      await recordCalibration(root, {
        model: `compatible:m${index}`,
        counter: 'conservative',
        samples: [{ estimated: 2, reported: 1 }],
        now: new Date(Date.UTC(2030, 0, 1, 0, index)),
      });
    }
    const models = await readCalibration(root);
    expect(models.size).toBe(MAX_CALIBRATED_MODELS);
    expect(models.has('openai:gpt-5.1')).toBe(false);
    expect(models.has(`compatible:m${MAX_CALIBRATED_MODELS + 2}`)).toBe(true);
  });

  it('treats a damaged file as empty and replaces it on the next record', async () => {
    const root = await home('damaged');
    await recordCalibration(root, {
      model: 'deepseek:deepseek-chat',
      counter: 'deepseek-v3',
      samples: [{ estimated: 10, reported: 10 }],
    });
    await writeFile(calibrationFilePath(root), '{"schemaVersion":1,"models":{"x":');
    expect((await readCalibration(root)).size).toBe(0);
    await recordCalibration(root, {
      model: 'deepseek:deepseek-chat',
      counter: 'deepseek-v3',
      samples: [{ estimated: 11, reported: 10 }],
    });
    expect((await readCalibration(root)).get('deepseek:deepseek-chat')?.samples).toEqual([
      { estimated: 11, reported: 10 },
    ]);
  });

  it('does not read a file over 1 MiB: calibration is relearned', async () => {
    const root = await home('oversized');
    await recordCalibration(root, {
      model: 'deepseek:deepseek-chat',
      counter: 'deepseek-v3',
      samples: [{ estimated: 10, reported: 10 }],
    });
    await writeFile(
      calibrationFilePath(root),
      `${await readFile(calibrationFilePath(root), 'utf8')}${' '.repeat(1024 * 1024)}`,
    );
    expect((await readCalibration(root)).size).toBe(0);
  });

  it('is never torn by a process killed while writing: every acknowledged sample survives, and the file always parses', async () => {
    const root = await home('killed');
    for (let round = 0; round < 6; round += 1) {
      const acknowledged = await new Promise<number>((resolve, reject) => {
        const child = spawn(process.execPath, [childScript, root], { stdio: ['ignore', 'pipe', 'pipe'] });
        let last = 0;
        let buffered = '';
        child.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          for (const match of buffered.matchAll(/ack (\d+)\n/g)) last = Number(match[1]);
          if (last >= 3 + round) child.kill('SIGKILL');
        });
        child.on('error', reject);
        child.on('exit', () => resolve(last));
      });
      const stored = (await readCalibration(root)).get('deepseek:deepseek-chat');
      expect(stored, `round ${round}`).toBeDefined();
      const estimates = stored?.samples.map((sample) => sample.estimated) ?? [];
      // Each child starts again at 1: its samples are the newest on disk, all it acknowledged and at most one write it was killed after.
      const newest = estimates.at(-1) ?? 0;
      expect(
        newest === acknowledged || newest === acknowledged + 1,
        `round ${round}: newest ${newest}, acknowledged ${acknowledged}`,
      ).toBe(true);
      expect(estimates.slice(-newest)).toEqual(Array.from({ length: newest }, (_, index) => index + 1));
    }
  }, 60_000);
});
