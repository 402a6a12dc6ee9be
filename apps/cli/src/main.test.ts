import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TransportError, type EventEnvelope } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestIo, runCli, temporaryDirectory, waitFor } from './test-support/cli-harness.js';
import { main } from './main.js';

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeAll(async () => {
  workspace = await temporaryDirectory();
  forgeHome = await temporaryDirectory('forge-home-');
  await writeFile(
    path.join(workspace.path, 'README.md'),
    '# Sample Project\n\nA tiny project the CLI tests summarise.\n',
  );
  await mkdir(path.join(workspace.path, 'src'));
  await writeFile(path.join(workspace.path, 'src', 'index.ts'), 'export const answer = 42;\n');
});

afterAll(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

const cli = (args: readonly string[], options: Partial<Parameters<typeof runCli>[1]> = {}) =>
  runCli(args, { cwd: workspace.path, ...options, env: { FORGE_HOME: forgeHome.path, ...options.env } });
const sessionLine = /^session: session_[A-Za-z0-9_-]+$/;

describe('forge --version and --help', () => {
  it('prints the package version', async () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
  });

  it('lists the commands and global options', async () => {
    const { code, stdout, stderr } = await cli(['--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    for (const expected of [
      'Usage: forge',
      'run [options] <prompt...>',
      '--model <provider:id>',
      '--approval <profile>',
      '--max-steps <n>',
      '--cwd <dir>',
    ]) {
      expect(stdout).toContain(expected);
    }
  });

  it('documents the exit codes under run --help', async () => {
    const { code, stdout } = await cli(['run', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('--json');
    expect(stdout).toContain(
      'Exit codes: 0 completed, 1 failed or stopped at a limit, 2 usage or configuration error, 130 cancelled',
    );
  });
});

describe('usage and configuration errors exit 2 with one line', () => {
  const cases: readonly (readonly [string, readonly string[], Record<string, string>, string])[] = [
    [
      'an unknown provider',
      ['run', '--model', 'acme:big', 'hi'],
      {},
      'forge: error: unknown model provider "acme" in "acme:big"; known providers: scripted, openai, deepseek, anthropic, compatible',
    ],
    [
      'a model id without a provider',
      ['run', '--model', 'gpt-5', 'hi'],
      {},
      'forge: error: model "gpt-5" is not of the form provider:model; for example --model scripted:demo or --model openai:gpt-5',
    ],
    [
      'a model id with nothing after the colon',
      ['run', '--model', 'openai:', 'hi'],
      {},
      'forge: error: model "openai:" is not of the form provider:model; for example --model scripted:demo or --model openai:gpt-5',
    ],
    [
      'an OpenAI model without a key',
      ['run', '--model', 'openai:gpt-5', 'hi'],
      {},
      'forge: error: OPENAI_API_KEY is not set; export it or choose another model with --model',
    ],
    [
      'a DeepSeek model without a key',
      ['run', '--model', 'deepseek:deepseek-chat', 'hi'],
      {},
      'forge: error: DEEPSEEK_API_KEY is not set; export it or choose another model with --model',
    ],
    [
      'an OpenAI base URL that is not http(s)',
      ['run', '--model', 'openai:gpt-5', 'hi'],
      { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'ftp://example.invalid' },
      'forge: error: OpenAI base URL "ftp://example.invalid" is not an http(s) URL; fix OPENAI_BASE_URL or the configured baseURL.',
    ],
    [
      'an unknown scripted model',
      ['run', '--model', 'scripted:nope', 'hi'],
      {},
      'forge: error: unknown scripted model "nope"; the scripted provider offers: demo',
    ],
    [
      'a bad --approval',
      ['run', '--approval', 'yolo', 'hi'],
      {},
      "forge: error: option '--approval <profile>' argument 'yolo' is invalid. Allowed choices are read-only, ask, workspace-write, workspace-auto.",
    ],
    [
      'a zero --max-steps',
      ['run', '--max-steps', '0', 'hi'],
      {},
      "forge: error: option '--max-steps <n>' argument '0' is invalid. Expected a positive whole number such as 10.",
    ],
    [
      'a fractional --max-steps',
      ['run', '--max-steps', '1.5', 'hi'],
      {},
      "forge: error: option '--max-steps <n>' argument '1.5' is invalid. Expected a positive whole number such as 10.",
    ],
    [
      'a word as --max-steps',
      ['--max-steps', 'many'],
      {},
      "forge: error: option '--max-steps <n>' argument 'many' is invalid. Expected a positive whole number such as 10.",
    ],
    [
      'an unknown command',
      ['summarise'],
      {},
      "forge: error: unknown command 'summarise'; run 'forge --help' to see the commands",
    ],
    [
      'a mistyped command',
      ['sesions', 'list'],
      {},
      "forge: error: unknown command 'sesions'; did you mean 'forge sessions'? run 'forge --help' to see the commands",
    ],
    ['a mistyped subcommand', ['sessions', 'lst'], {}, "forge: error: unknown command 'lst' (Did you mean list?)"],
    [
      '--resume on a command that does not continue sessions',
      ['sessions', 'list', '--resume', 'session_a'],
      {},
      "forge: error: --resume does not apply to 'forge sessions list', which would ignore it; leave it out (see 'forge sessions list --help')",
    ],
    [
      '--approval on inspect',
      ['inspect', '--last', '--approval', 'ask'],
      {},
      "forge: error: --approval does not apply to 'forge inspect', which would ignore it; leave it out (see 'forge inspect --help')",
    ],
    [
      '--engine on config show',
      ['--engine', 'native', 'config', 'show'],
      {},
      "forge: error: --engine does not apply to 'forge config show', which would ignore it; leave it out (see 'forge config show --help')",
    ],
    [
      '--max-steps on context',
      ['context', '--max-steps', '3'],
      {},
      "forge: error: --max-steps does not apply to 'forge context', which would ignore it; leave it out (see 'forge context --help')",
    ],
    ['an unknown option', ['run', '--frobnicate', 'hi'], {}, "forge: error: unknown option '--frobnicate'"],
    ['a missing prompt', ['run'], {}, "forge: error: missing required argument 'prompt'"],
    [
      'an empty prompt',
      ['run', '   '],
      {},
      'forge: error: the prompt is empty; say what Forge should do, e.g. forge run "Summarise the workspace"',
    ],
  ];

  it.each(cases)('%s', async (_name, args, env, message) => {
    const { code, stdout, stderr } = await cli(args, { env });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`${message}\n`);
  });

  it('rejects a --cwd that does not exist, naming the resolved path', async () => {
    const { code, stderr } = await cli(['run', '--cwd', 'missing-dir', 'hi']);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `forge: error: --cwd ${path.join(workspace.path, 'missing-dir')} does not exist; pass an existing directory\n`,
    );
  });

  it('rejects a --cwd that is a file', async () => {
    const { code, stderr } = await cli(['run', '--cwd', 'README.md', 'hi']);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `forge: error: --cwd ${path.join(workspace.path, 'README.md')} is not a directory; pass the workspace directory\n`,
    );
  });

  it('prints the stack trace only with FORGE_DEBUG=1', async () => {
    const { code, stderr } = await cli(['run', '--model', 'acme:big', 'hi'], { env: { FORGE_DEBUG: '1' } });
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toContain('forge: error: unknown model provider "acme"');
    expect(stderr).toMatch(/\n\s+at /);
  });
});

describe('forge run', () => {
  it('summarises the workspace with scripted:demo, streaming text to stdout and tool activity to stderr', async () => {
    const { code, stdout, stderr } = await cli(['run', '--model', 'scripted:demo', 'Summarise the workspace']);
    expect(code).toBe(0);
    expect(stdout).toContain('list_files found 2 files in 1 directory.');
    expect(stdout).toContain('README.md has 3 lines; its first heading is "# Sample Project".');
    expect(stdout).toContain('It begins: "A tiny project the CLI tests summarise."');
    const [listed, listedResult, read, readResult, session, end] = stderr.split('\n');
    expect([listed, listedResult, read, readResult, end]).toEqual([
      '• list_files . (recursive)',
      '  listed . (3 entries)',
      '• read_file README.md',
      '  read README.md (3 lines)',
      '',
    ]);
    expect(session).toMatch(sessionLine);
  });

  it('uses scripted:demo when no model is named and accepts the prompt as several words', async () => {
    const { code, stdout } = await cli(['run', 'Summarise', 'the', 'workspace']);
    expect(code).toBe(0);
    expect(stdout).toContain('"# Sample Project"');
  });

  it('says up front, on stderr and in the first line of the answer, that the demo answers when no model is configured', async () => {
    const { code, stdout, stderr } = await cli(['run', 'fix the bug']);
    expect(code).toBe(0);
    expect(stderr.split('\n')[0]).toBe(
      'forge: no model is configured, so the scripted demo model answers: it lists and reads files but does not act on your request. See the models you can use with \'forge models list\', then choose one with --model provider:id or set "model" in FORGE_HOME/config.json (docs/configuration.md).',
    );
    expect(stdout.split('\n')[0]).toBe(
      'The scripted demo model is answering, not a real model: it lists and reads the workspace but does not act on your request.',
    );
    const chosen = await cli(['run', '--model', 'scripted:demo', 'fix the bug']);
    expect(chosen.stderr).not.toContain('no model is configured');
  });

  it('with --json prints only event envelopes, one per line, in sequence, ending with run.completed', async () => {
    const { code, stdout, stderr } = await cli(['run', '--json', 'Summarise the workspace']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout.endsWith('\n')).toBe(true);
    const envelopes = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as EventEnvelope);
    expect(envelopes.map((envelope) => envelope.sequence)).toEqual(envelopes.map((_envelope, index) => index));
    expect(new Set(envelopes.map((envelope) => envelope.runId)).size).toBe(1);
    expect(
      envelopes.every((envelope) => envelope.schemaVersion === 1 && !Number.isNaN(Date.parse(envelope.timestamp))),
    ).toBe(true);
    expect(envelopes[0]?.event.type).toBe('run.started');
    expect(envelopes.at(-1)?.event).toMatchObject({ type: 'run.completed', status: 'completed', steps: 3 });
    const tools = envelopes.flatMap(({ event }) =>
      event.type === 'tool.call.completed' ? [`${event.toolName}:${event.outcome}`] : [],
    );
    expect(tools).toEqual(['list_files:ok', 'read_file:ok']);
  });

  it('denies edits it cannot ask about and says on stderr how to allow them', async () => {
    const model = editingModel('denied.txt');
    const { code, stderr } = await cli(['run', '--model', 'test:edit', 'write a note'], { models: { edit: model } });
    expect(code).toBe(0);
    expect(stderr).toContain(
      'forge: denied edit_file create denied.txt: forge run cannot ask for approval; re-run with --approval workspace-write to allow edits\n',
    );
    expect(existsSync(path.join(workspace.path, 'denied.txt'))).toBe(false);
    const toolResult = JSON.stringify(model.requests[1]?.continuation);
    expect(toolResult).toContain('cannot ask (non-interactive)');
  });

  it('runs edits under --approval workspace-write', async () => {
    const { code, stderr } = await cli(
      ['run', '--approval', 'workspace-write', '--model', 'test:edit', 'write a note'],
      {
        models: { edit: editingModel('allowed.txt') },
      },
    );
    expect(code).toBe(0);
    expect(stderr.split('\n').slice(0, 2)).toEqual(['• edit_file create allowed.txt', '  created allowed.txt (+1 −0)']);
    expect(stderr.split('\n')[2]).toMatch(sessionLine);
    expect(readFileSync(path.join(workspace.path, 'allowed.txt'), 'utf8')).toBe('a note\n');
  });

  it('explains how to allow commands, and runs them under --approval workspace-auto', async () => {
    const script = () =>
      new ScriptedModel([
        { toolCalls: [{ toolName: 'run_command', input: { argv: [process.execPath, '-e', 'console.log(6*7)'] } }] },
        { text: 'ok' },
      ]);
    const denied = script();
    const first = await cli(['run', '--approval', 'workspace-write', '--model', 'test:command', 'list'], {
      models: { command: denied },
    });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      'forge run cannot ask for approval; re-run with --approval workspace-auto to allow commands',
    );
    expect(JSON.stringify(denied.requests[1]?.continuation)).not.toContain('42');

    const allowed = script();
    const second = await cli(['run', '--approval', 'workspace-auto', '--model', 'test:command', 'list'], {
      models: { command: allowed },
    });
    expect(second.code).toBe(0);
    expect(JSON.stringify(allowed.requests[1]?.continuation)).toContain('42');
  });

  it('exits 1 with one line when the step limit stops the run', async () => {
    const looping = new ScriptedModel(
      Array.from({ length: 3 }, () => ({ toolCalls: [{ toolName: 'list_files', input: {} }] })),
    );
    const { code, stderr } = await cli(['run', '--max-steps', '2', '--model', 'test:loop', 'go'], {
      models: { loop: looping },
    });
    expect(code).toBe(1);
    expect(stderr.split('\n').at(-2)).toBe(
      'forge: error: the run stopped after 2 model steps without a final answer; raise --max-steps or narrow the request',
    );
  });

  it('exits 1 naming the error when the model fails', async () => {
    const failing = new ScriptedModel([
      { error: new TransportError({ message: 'connection reset by the provider', isRetryable: false }) },
    ]);
    const { code, stdout, stderr } = await cli(['run', '--model', 'test:fail', 'go'], { models: { fail: failing } });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toMatch(sessionLine);
    expect(stderr.split('\n').slice(1)).toEqual([
      'forge: error: the run failed: connection reset by the provider (transport)',
      '',
    ]);
  });

  it('exits 130 when Ctrl-C cancels the run, and --json still ends with the cancelled status', async () => {
    const test = createTestIo({
      cwd: workspace.path,
      env: { FORGE_HOME: forgeHome.path },
      models: { hang: new ScriptedModel([{ text: 'thinking', hang: true }]) },
    });
    const running = main(['node', 'forge', 'run', '--json', '--model', 'test:hang', 'go'], test.io);
    await waitFor(
      () => test.stdout.text,
      (text) => text.includes('model.step.started'),
    );
    test.interrupt();
    expect(await running).toBe(130);
    expect(test.stderr.text).toBe('forge: cancelling…\nforge: cancelled\n');
    const last = JSON.parse(test.stdout.text.trimEnd().split('\n').at(-1) ?? '{}') as EventEnvelope;
    expect(last.event).toMatchObject({ type: 'run.completed', status: 'cancelled' });
  });
});

function editingModel(file: string): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ toolName: 'edit_file', input: { path: file, mode: 'create', content: 'a note\n' } }] },
    { text: 'Done.' },
  ]);
}
