import { CommanderError } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { flag, text } from './commands/command-options.js';
import type { CommandEntry, CommandInvocation, CommandModule } from './commands/command.js';
import { createProgram, type CommandTable } from './program.js';
import { createTestIo } from './test-support/cli-harness.js';

function fakeModule(exitCode: number): { readonly module: CommandModule; readonly calls: CommandInvocation[] } {
  const calls: CommandInvocation[] = [];
  return {
    calls,
    module: {
      execute: async (invocation) => {
        calls.push(invocation);
        return exitCode;
      },
    },
  };
}

function tableWith(entries: readonly CommandEntry[]): CommandTable {
  return {
    groups: [{ name: 'sessions', description: 'list and show saved sessions' }],
    commands: entries,
    interactive: { usage: '', description: 'the test program', load: async () => fakeModule(0).module },
  };
}

async function parse(table: CommandTable, args: readonly string[]) {
  const test = createTestIo({ cwd: process.cwd() });
  let exitCode: number | undefined;
  const program = createProgram(test.io, (code) => (exitCode = code), table);
  let thrown: unknown;
  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (error) {
    thrown = error;
  }
  return { exitCode, thrown, stdout: test.stdout.text, stderr: test.stderr.text };
}

describe('the command table', () => {
  it('adds grouped subcommands from one entry each and passes arguments and merged options', async () => {
    const show = fakeModule(7);
    const list = fakeModule(0);
    const table = tableWith([
      { usage: 'sessions list', description: 'list sessions', load: async () => list.module },
      {
        usage: 'sessions show <id>',
        description: 'show one session',
        options: { full: flag('--full', 'everything') },
        load: async () => show.module,
      },
    ]);
    const result = await parse(table, [
      '--model',
      'scripted:demo',
      'sessions',
      'show',
      'abc',
      '--full',
      '--max-steps',
      '3',
    ]);
    expect(result.exitCode).toBe(7);
    expect(show.calls[0]?.args).toEqual(['abc']);
    expect(show.calls[0]?.options).toMatchObject({ model: 'scripted:demo', full: true, maxSteps: 3 });
    expect(list.calls).toHaveLength(0);
  });

  it('lists a group with its description and loads no command for --help', async () => {
    const load = vi.fn(async () => fakeModule(0).module);
    const table = tableWith([{ usage: 'sessions list', description: 'list sessions', load }]);
    const result = await parse(table, ['--help']);
    expect(result.thrown).toBeInstanceOf(CommanderError);
    expect(result.stdout).toMatch(/sessions\s+list and show saved sessions/);
    expect(load).not.toHaveBeenCalled();
  });

  it('runs the interactive entry when no command is given', async () => {
    const repl = fakeModule(0);
    const table: CommandTable = {
      ...tableWith([]),
      interactive: { usage: '', description: 'test', load: async () => repl.module },
    };
    await parse(table, ['--approval', 'read-only']);
    expect(repl.calls[0]?.options).toMatchObject({ approval: 'read-only' });
  });

  it('hands a command only the options it declares, absent ones left out, and refuses a spec filed under another name', async () => {
    const show = fakeModule(0);
    const declared = tableWith([
      {
        usage: 'sessions show',
        description: 'show',
        options: { dryRun: flag('--dry-run', 'preview'), note: text('--note <text>', 'a note') },
        load: async () => show.module,
      },
    ]);
    await parse(declared, ['sessions', 'show', '--dry-run']);
    expect(show.calls[0]?.options).toEqual({ dryRun: true });

    const misfiled = tableWith([
      {
        usage: 'sessions show',
        description: 'show',
        options: { dry: flag('--dry-run', 'preview') },
        load: async () => fakeModule(0).module,
      },
    ]);
    const result = await parse(misfiled, ['sessions', 'show']);
    expect(String(result.thrown)).toContain('declared as "dry" but commander names it "dryRun"');
  });
});
