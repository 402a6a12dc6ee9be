import { readFileSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createCommandSandbox } from '../sandbox/command-sandbox.js';
import { call, makeTempDirectory, outputText } from '../temp-workspace.test-helpers.js';
import { createRunCommandTool, renderArgv } from './run-command.js';

const node = process.execPath;

/*
 * These tests follow the processes a command starts by the pids they write, which are host pids
 * only outside a PID namespace: they run with the sandbox off. `sandbox.test.ts` runs the same
 * endings (timeout, cancel, escapees) inside the sandbox.
 */
async function setUp(options: { commandTimeoutMs?: number; outputCapBytes?: number } = {}) {
  const root = await makeTempDirectory();
  return {
    root,
    tool: createRunCommandTool({
      root,
      ...options,
      sandbox: createCommandSandbox({ root, settings: { mode: 'off' } }),
    }),
  };
}

/** Whether `pid` is a running process; a zombie (dead, not yet reaped by its new parent) counts as gone. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return true;
  }
}

describe('run_command', () => {
  it('runs a program without a shell and reports output and exit code', async () => {
    const { tool } = await setUp();
    const result = await call(tool, {
      argv: [node, '-e', 'console.log("out"); console.error("err"); process.exit(3)'],
    });
    const shown = outputText(result);
    expect(result.output.type).toBe('text');
    expect(shown).toContain('out\n');
    expect(shown).toContain('err\n');
    expect(shown).toMatch(/\n\[exit code 3 after \d+ ms\]$/);
    expect(result.metadata).toMatchObject({
      exitCode: 3,
      signal: null,
      timedOut: false,
      cancelled: false,
      truncated: false,
      cwd: '.',
    });
  });

  it('passes arguments literally, with no shell expansion', async () => {
    const { tool } = await setUp();
    const result = await call(tool, {
      argv: [node, '-e', 'console.log(process.argv.slice(1).join("|"))', '$HOME', '*', 'a;b'],
    });
    expect(outputText(result)).toContain('$HOME|*|a;b\n');
  });

  it('runs in a confined working directory', async () => {
    const { root, tool } = await setUp();
    await mkdir(path.join(root, 'sub'));
    const result = await call(tool, { argv: [node, '-e', 'console.log(process.cwd())'], cwd: 'sub' });
    expect(outputText(result)).toContain(`${path.join(root, 'sub')}\n`);
    expect(outputText(await call(tool, { argv: [node, '-e', '0'], cwd: '..' }))).toContain('is outside the workspace');
    const outside = await makeTempDirectory();
    await symlink(outside, path.join(root, 'escape'));
    expect(outputText(await call(tool, { argv: [node, '-e', '0'], cwd: 'escape' }))).toContain('outside the workspace');
  });

  it('stops a command at its timeout together with the processes it started', async () => {
    const { tool } = await setUp();
    const script = [
      'const { spawn } = require("node:child_process");',
      'const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 10000)"], { stdio: "ignore" });',
      'console.log("grandchild " + child.pid);',
      'setTimeout(() => {}, 10000);',
    ].join('\n');
    const started = Date.now();
    const result = await call(tool, { argv: [node, '-e', script], timeoutMs: 1000 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outputText(result)).toMatch(/\[timed out after 1000 ms: the command was stopped with its process group\]$/);
    expect(result.metadata).toMatchObject({ timedOut: true, signal: 'SIGTERM', exitCode: null });
    const grandchild = Number(/grandchild (\d+)/.exec(outputText(result))?.[1]);
    expect(grandchild).toBeGreaterThan(0);
    await delay(100);
    expect(isAlive(grandchild)).toBe(false);
  });

  it('stops a process that left the group with setsid when the command times out, and says so', async () => {
    const { root, tool } = await setUp();
    const escape =
      "setsid sh -c 'echo $$ > escaped.pid; exec sleep 30' < /dev/null > /dev/null 2>&1 & while [ ! -s escaped.pid ]; do sleep 0.05; done; sleep 30";
    const result = await call(tool, { argv: ['sh', '-c', escape], timeoutMs: 1500 });
    const escaped = Number(await readFile(path.join(root, 'escaped.pid'), 'utf8'));
    expect(escaped).toBeGreaterThan(0);
    expect(isAlive(escaped)).toBe(false);
    expect(outputText(result)).toMatch(
      /\[timed out after 1500 ms: the command was stopped with its process group\]\n\[also stopped 1 process the command had started outside its process group \(setsid\)\]$/,
    );
    expect(result.metadata).toMatchObject({
      timedOut: true,
      strayProcessesStopped: 1,
      strayProcessesRunning: [],
      processesTracked: true,
      pipesHeldOpen: false,
    });
  });

  it('stops a setsid daemon a command leaves behind when it exits', async () => {
    const { root, tool } = await setUp();
    const daemon =
      "setsid sh -c 'echo $$ > daemon.pid; exec sleep 30' < /dev/null > /dev/null 2>&1 & while [ ! -s daemon.pid ]; do sleep 0.05; done; echo started";
    const result = await call(tool, { argv: ['sh', '-c', daemon] });
    const pid = Number(await readFile(path.join(root, 'daemon.pid'), 'utf8'));
    expect(isAlive(pid)).toBe(false);
    expect(outputText(result)).toMatch(
      /started\n\[exit code 0 after \d+ ms\]\n\[also stopped 1 process the command had started outside its process group \(setsid\)\]$/,
    );
  });

  it('finds an escapee that cleared its environment through its parent while the command runs', async () => {
    const { root, tool } = await setUp();
    const escape =
      "setsid env -i sh -c 'echo $$ > hidden.pid; exec sleep 30' < /dev/null > /dev/null 2>&1 & while [ ! -s hidden.pid ]; do sleep 0.05; done; sleep 30";
    const result = await call(tool, { argv: ['sh', '-c', escape], timeoutMs: 1500 });
    const pid = Number(await readFile(path.join(root, 'hidden.pid'), 'utf8'));
    expect(isAlive(pid)).toBe(false);
    expect(result.metadata).toMatchObject({ strayProcessesStopped: 1 });
  });

  it('says a process may still be running when one Forge cannot find holds the output open', async () => {
    const { root, tool } = await setUp();
    // Its own session, an empty environment and a dead parent: nothing leads back to the command but the pipe it holds.
    const hidden =
      "setsid env -i sh -c 'echo $$ > hidden.pid; exec sleep 30' < /dev/null & while [ ! -s hidden.pid ]; do sleep 0.05; done; echo started";
    const result = await call(tool, { argv: ['sh', '-c', hidden] });
    const pid = Number(await readFile(path.join(root, 'hidden.pid'), 'utf8'));
    try {
      expect(isAlive(pid)).toBe(true);
      expect(outputText(result)).toMatch(
        /\[exit code 0 after \d+ ms\]\n\[warning: the output stayed open after the command ended: a process it started that Forge cannot find may still be running\]$/,
      );
      expect(result.metadata).toMatchObject({ pipesHeldOpen: true, strayProcessesStopped: 0 });
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('never waits longer than the configured maximum timeout', async () => {
    const { tool } = await setUp({ commandTimeoutMs: 300 });
    const result = await call(tool, { argv: [node, '-e', 'setTimeout(() => {}, 10000)'], timeoutMs: 60_000 });
    expect(result.metadata).toMatchObject({ timedOut: true });
    expect(outputText(result)).toContain('[timed out after 300 ms');
  });

  it('keeps the head and tail of long output with a truncation marker', async () => {
    const { tool } = await setUp({ outputCapBytes: 100 });
    const result = await call(tool, {
      argv: [node, '-e', 'process.stdout.write("A".repeat(50) + "x".repeat(1000) + "Z".repeat(50))'],
    });
    const shown = outputText(result);
    expect(shown).toContain(`${'A'.repeat(50)}\n[... 1000 bytes of output omitted ...]\n${'Z'.repeat(50)}`);
    expect(shown).not.toContain('xxx');
    expect(result.metadata).toMatchObject({ truncated: true, exitCode: 0 });
  });

  it('stops the command when the run is aborted', async () => {
    const { tool } = await setUp();
    const controller = new AbortController();
    const started = Date.now();
    const pending = call(
      tool,
      { argv: [node, '-e', 'console.log("started"); setTimeout(() => {}, 10000)'] },
      controller.signal,
    );
    setTimeout(() => controller.abort(), 300);
    const result = await pending;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.metadata).toMatchObject({ cancelled: true, timedOut: false, signal: 'SIGTERM' });
    expect(outputText(result)).toMatch(
      /\[cancelled after \d+ ms: the run was aborted and the command was stopped with its process group\]$/,
    );
  });

  it('does not start a command once the run is aborted', async () => {
    const { tool } = await setUp();
    const controller = new AbortController();
    controller.abort();
    const result = await call(tool, { argv: [node, '-e', '0'] }, controller.signal);
    expect(result.output).toEqual({
      type: 'error-text',
      value: 'Not run: the run was cancelled before the command started.',
    });
  });

  it('names a program that cannot be found', async () => {
    const { tool } = await setUp();
    const result = await call(tool, { argv: ['forge-no-such-program-xyz', '--version'] });
    expect(result.output).toEqual({
      type: 'error-text',
      value:
        'Program "forge-no-such-program-xyz" was not found: it is not on PATH and is not a file at that path. Check the name.',
    });
  });

  it('rejects a shell string or an empty argv as invalid input', async () => {
    const { tool } = await setUp();
    expect(outputText(await call(tool, { argv: 'npm test' }))).toContain('Invalid input for run_command: argv:');
    expect(outputText(await call(tool, { argv: [] }))).toContain('Invalid input for run_command: argv:');
    expect(outputText(await call(tool, { argv: [''] }))).toContain('the program name (argv[0]) must not be empty');
  });

  it('describes a call as the command line a person would type', () => {
    expect(renderArgv(['git', 'commit', '-m', "it's done"])).toBe(`git commit -m 'it'\\''s done'`);
  });
});

describe('run_command summary', () => {
  it('says in one line what ran and how it ended', async () => {
    const { tool } = await setUp();
    expect((await call(tool, { argv: [process.execPath, '-e', 'process.exit(3)'] })).summary).toBe(
      `ran ${process.execPath} -e 'process.exit(3)' → exit 3`,
    );
    expect((await call(tool, { argv: [process.execPath, '-e', ''] })).summary).toMatch(/ → exit 0$/);
  });
});
