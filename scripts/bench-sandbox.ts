/*
 * What the sandbox adds to starting a command: the same short program (`true`) run through
 * `run_command` unsandboxed (sandbox.mode off) and inside bubblewrap in workspace-write with the
 * network off (new mount, PID, IPC and network namespaces, the per-command temporary directory,
 * the read-only binds), interleaved in one run so both see the same machine. The workspace is a
 * git repository with an AGENTS.md, as most are; `.forge/` is missing, so each sandboxed command
 * also makes and removes its placeholder. Prints the
 * median wall time of each, the median overhead per command and the ratio. Target: ≤ 25 ms.
 *
 *   npx tsx --conditions=@forge/source scripts/bench-sandbox.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCommandSandbox, createRunCommandTool } from '@forge/tools';
import { median } from './bench-support.js';

const RUNS = 41;
const TARGET_MS = 25;

const root = await mkdtemp(path.join(tmpdir(), 'forge-bench-sandbox-'));
try {
  execFileSync('git', ['init', '-q', root]);
  await writeFile(path.join(root, 'AGENTS.md'), 'Run the tests with npm test.\n');
  const sandboxed = createCommandSandbox({ root });
  if (sandboxed.status.enforcement.kind === 'none')
    throw new Error(`no sandbox to measure: ${sandboxed.status.enforcement.detail} (apt-get install bubblewrap)`);
  const tools = {
    plain: createRunCommandTool({ root, sandbox: createCommandSandbox({ root, settings: { mode: 'off' } }) }),
    sandboxed: createRunCommandTool({ root, sandbox: sandboxed }),
  };
  const signal = new AbortController().signal;
  const time = async (tool: ReturnType<typeof createRunCommandTool>) => {
    const started = performance.now();
    const result = await tool.execute({ argv: ['true'] }, { toolCallId: 'bench', signal });
    if (result.metadata?.['exitCode'] !== 0) throw new Error(`the command failed: ${JSON.stringify(result.output)}`);
    return performance.now() - started;
  };
  await time(tools.plain);
  await time(tools.sandboxed);
  const plain: number[] = [];
  const confined: number[] = [];
  const overhead: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const a = await time(tools.plain);
    const b = await time(tools.sandboxed);
    plain.push(a);
    confined.push(b);
    overhead.push(b - a);
  }
  const [plainMs, confinedMs, overheadMs] = [median(plain), median(confined), median(overhead)];
  const { enforcement } = sandboxed.status;
  console.log(
    `run_command ["true"], median of ${RUNS} interleaved pairs (${'program' in enforcement ? enforcement.program : ''})`,
  );
  console.log(`  unsandboxed (sandbox.mode off)             ${plainMs.toFixed(1)} ms`);
  console.log(
    `  sandboxed (workspace-write, network off)   ${confinedMs.toFixed(1)} ms   ${(confinedMs / plainMs).toFixed(2)}× unsandboxed`,
  );
  console.log(
    `  overhead per command                       ${overheadMs.toFixed(1)} ms   target ≤ ${TARGET_MS} ms: ${overheadMs <= TARGET_MS ? 'met' : 'MISSED'}`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
