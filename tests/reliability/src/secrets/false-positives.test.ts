import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Message } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { runCli } from '@forge/cli/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { reportCounts } from '../support/run-size.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';
import { falsePositiveCorpus } from './false-positive-corpus.js';

/*
 * Issue 17, point 3: redaction must not touch what is not a secret. The false-positive corpus goes
 * through real `forge run` sessions — in the request, a file the model reads, command output and
 * the answer, with `PWD`, `OLDPWD` and other secret-sounding variables in the environment — then
 * through `forge compact`. The session log, `forge sessions show` and the checkpoint must hold
 * every entry unchanged and no redaction marker at all.
 */

const temporaryDirectory = useTemporaryDirectories();
let home = '';
let workspace = '';
let corpus: readonly string[] = [];
const artifacts = new Map<string, string>();
let stored: Message[] = [];

beforeAll(async () => {
  home = join(await temporaryDirectory('false-positives-home'), 'forge');
  workspace = await temporaryDirectory('false-positives-workspace');
  corpus = falsePositiveCorpus(workspace);
  await mkdir(home, { recursive: true });
  await writeFile(join(home, 'config.json'), JSON.stringify({ schemaVersion: 1, context: { recentTailTokens: 300 } }));
  await writeFile(join(workspace, 'ordinary.txt'), `${corpus.join('\n')}\n`);
  const env = {
    FORGE_HOME: home,
    PWD: workspace,
    OLDPWD: join(workspace, '..'),
    PASSWORD_STORE_DIR: join(workspace, '.password-store'),
    SSH_AUTH_SOCK: join(workspace, 'agent.sock'),
    TOKENIZERS_PARALLELISM: 'false',
  };
  const model = new ScriptedModel([
    {
      text: `Reading ${workspace}/ordinary.txt.`,
      toolCalls: [
        { toolName: 'read_file', input: { path: 'ordinary.txt' }, toolCallId: 'call_read' },
        { toolName: 'run_command', input: { argv: ['pwd'] }, toolCallId: 'call_pwd' },
        { toolName: 'run_command', input: { argv: ['cat', 'ordinary.txt'] }, toolCallId: 'call_cat' },
      ],
    },
    { text: `Nothing secret here:\n${corpus.join('\n')}` },
    { text: `Still in ${workspace}.` },
  ]);
  const first = await runCli(
    [
      'run',
      '--model',
      'test:plain',
      '--approval',
      'workspace-auto',
      '--cwd',
      workspace,
      `In $PWD (${workspace}), check these lines:\n${corpus.join('\n')}`,
    ],
    {
      cwd: workspace,
      env,
      models: { plain: model },
    },
  );
  expect(first.code, first.stderr).toBe(0);
  const sessionId = /session: (\S+)/.exec(first.stderr)?.[1] ?? '';
  const second = await runCli(
    [
      'run',
      '--model',
      'test:plain',
      '--resume',
      sessionId,
      '--cwd',
      workspace,
      `And once more, ${corpus.slice(0, 8).join('; ')}`,
    ],
    {
      cwd: workspace,
      env,
      models: { plain: model },
    },
  );
  expect(second.code, second.stderr).toBe(0);

  const cli = async (name: string, args: string[]) => {
    const outcome = await runCli(args, { cwd: workspace, env });
    expect(outcome.code, `${name}: ${outcome.stderr}`).toBe(0);
    artifacts.set(name, outcome.stdout);
    return outcome.stdout;
  };
  await cli('forge compact', ['compact', '--session', sessionId]);
  artifacts.set('session log', await readFile(join(home, 'sessions', sessionId, 'session.jsonl'), 'utf8'));
  stored = (
    JSON.parse(await cli('forge sessions show --json', ['sessions', 'show', sessionId, '--json'])) as {
      messages: Message[];
    }
  ).messages;
  await cli('forge sessions show', ['sessions', 'show', sessionId]);
  await cli('forge checkpoint show --json', ['checkpoint', 'show', '--session', sessionId, '--json']);
}, 120_000);

describe('the false-positive corpus is never redacted', () => {
  it('reaches the stored transcript unchanged, in the request, the file read, command output and the answer', () => {
    const request = stored.find((message) => message.role === 'user');
    const read = stored
      .flatMap((message) => (message.role === 'tool' ? message.content : []))
      .find((part) => part.toolCallId === 'call_read');
    const printed = stored
      .flatMap((message) => (message.role === 'tool' ? message.content : []))
      .find((part) => part.toolCallId === 'call_pwd');
    const answer = stored.find(
      (message) =>
        message.role === 'assistant' &&
        message.content.some((part) => part.type === 'text' && part.text.startsWith('Nothing secret')),
    );
    for (const entry of corpus) {
      expect(request?.role === 'user' && request.content, entry).toContain(entry);
      expect(read?.output.value, entry).toContain(entry);
      expect(JSON.stringify(answer), entry).toContain(JSON.stringify(entry).slice(1, -1));
    }
    expect(printed?.output.value).toContain(`\n${workspace}\n`);
  });

  it('leaves no redaction marker in the session log, sessions show or the checkpoint', () => {
    expect([...artifacts.keys()]).toEqual([
      'forge compact',
      'session log',
      'forge sessions show --json',
      'forge sessions show',
      'forge checkpoint show --json',
    ]);
    const checkpoint = JSON.parse(artifacts.get('forge checkpoint show --json') ?? '{}') as {
      checkpoint?: unknown;
      view?: string;
    };
    expect(checkpoint.checkpoint, 'forge compact made a checkpoint').toBeDefined();
    expect(checkpoint.view).toContain(workspace);
    const marked = [...artifacts].filter(([, text]) => text.includes('REDACTED')).map(([name]) => name);
    reportCounts('false-positives', { entries: corpus.length, artifacts: artifacts.size, redacted: marked.length });
    expect(marked).toEqual([]);
  });
});
