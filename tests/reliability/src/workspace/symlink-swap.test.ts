import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createReadFileTool, ReadLedger } from '@forge/tools';
import { describe, expect, it } from 'vitest';
import { reportCounts, runSize } from '../support/run-size.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/*
 * Issue 10, point 6: a directory on a checked path swapped for a symbolic link to the outside
 * between the confinement check and the read (time of check to time of use). Another process
 * swaps `real/` and a link to the outside as fast as it can while read_file reads
 * `real/secret.txt` over and over: not one read may return the outside file. (Writes through
 * edit_file keep this race open; docs/security.md names the limit.)
 */

const temporaryDirectory = useTemporaryDirectories();
const SWAP_MS = runSize(1_500, 20_000);

const SWAPPER = `
const { renameSync, symlinkSync, unlinkSync } = require('node:fs');
const [real, parked, outside, ms] = process.argv.slice(1);
const end = Date.now() + Number(ms);
let swaps = 0;
while (Date.now() < end) {
  renameSync(real, parked);
  symlinkSync(outside, real);
  for (let spin = 0; spin < 200; spin += 1);
  unlinkSync(real);
  renameSync(parked, real);
  swaps += 1;
}
process.stdout.write(String(swaps));
`;

describe('a directory swapped for a symbolic link after the check', () => {
  it('never lets read_file return the file outside the workspace', async () => {
    const base = await temporaryDirectory('symlink-swap');
    const root = join(base, 'workspace');
    const outside = join(base, 'outside');
    await mkdir(join(root, 'real'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(root, 'real', 'secret.txt'), 'inside\n');
    await writeFile(join(outside, 'secret.txt'), 'OUTSIDE-SECRET-9911\n');
    const tool = createReadFileTool({ root, ledger: new ReadLedger() });

    const swapper = spawn(
      process.execPath,
      ['-e', SWAPPER, join(root, 'real'), join(root, 'real.parked'), outside, String(SWAP_MS)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let swaps = '';
    swapper.stdout.setEncoding('utf8').on('data', (chunk: string) => (swaps += chunk));
    const finished = new Promise<void>((resolve) => swapper.on('close', () => resolve()));
    let running = true;
    void finished.then(() => (running = false));

    const outcomes = { reads: 0, inside: 0, refused: 0, outside: 0 };
    while (running) {
      const result = await tool.execute(
        { path: 'real/secret.txt' },
        { toolCallId: 'call_read', signal: new AbortController().signal },
      );
      outcomes.reads += 1;
      const text = result.output.type === 'json' ? JSON.stringify(result.output.value) : result.output.value;
      if (text.includes('OUTSIDE-SECRET-9911')) outcomes.outside += 1;
      else if (result.output.type === 'error-text') outcomes.refused += 1;
      else outcomes.inside += 1;
    }
    await finished;
    reportCounts('symlink-swap', { ...outcomes, swaps: Number(swaps) });
    expect(outcomes.reads).toBeGreaterThan(50);
    expect(outcomes.inside).toBeGreaterThan(0);
    expect(outcomes.outside).toBe(0);
  }, 60_000);
});
