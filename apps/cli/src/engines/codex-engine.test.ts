import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Message } from '@forge/core';
import { createSession, type SessionTranscript } from '@forge/persistence';
import { ScriptedModel } from '@forge/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createCodexDirectories,
  TEST_MODEL,
  writeLoopbackConfig,
  type CodexSandboxDirectories,
} from '@forge/codex/test-helpers/codex-harness';
import {
  assistantMessage,
  execCommandCall,
  startLoopbackResponsesServer,
  type LoopbackResponsesServer,
} from '@forge/codex/test-helpers/loopback-responses';
import { main } from '../main.js';
import { createTestIo, runCli, waitFor } from '../test-support/cli-harness.js';

/*
 * `forge --engine codex` end to end: the real Codex binary from the @openai/codex dev dependency
 * of @forge/codex, configured through CODEX_HOME/config.toml (as a user would) to use the
 * loopback Responses server on 127.0.0.1. CODEX_HOME, HOME, the workspace and FORGE_HOME are
 * temporary; proxies point at a closed port so nothing but loopback is reachable.
 */

let directories: CodexSandboxDirectories;
let provider: LoopbackResponsesServer;
let forgeHome: string;

beforeEach(async () => {
  directories = await createCodexDirectories();
  provider = await startLoopbackResponsesServer();
  forgeHome = path.join(directories.root, 'forge-home');
  await writeLoopbackConfig(directories.codexHome, provider.baseUrl);
  await writeFile(path.join(directories.workspace, 'AGENTS.md'), 'Answer in one sentence.\n');
});

afterEach(async () => {
  await provider.close();
  await rm(directories.root, { recursive: true, force: true });
});

const environment = (extra: Record<string, string> = {}) =>
  ({ ...directories.environment, FORGE_HOME: forgeHome, ...extra }) as Record<string, string>;
const forge = (args: readonly string[], extra: Record<string, string> = {}) =>
  runCli(args, { cwd: directories.workspace, env: environment(extra) });

async function showSession(id: string): Promise<SessionTranscript> {
  const shown = await forge(['sessions', 'show', id, '--json']);
  expect(shown.code).toBe(0);
  return JSON.parse(shown.stdout) as SessionTranscript;
}

/** The user texts of request `index`, in order (Codex's own history and the new input). */
function userTexts(index: number): string[] {
  return (provider.requests[index]?.body.input ?? [])
    .flatMap((item) =>
      item['type'] === 'message' && item['role'] === 'user'
        ? [(item['content'] as { text?: string }[]).map((part) => part.text ?? '').join('')]
        : [],
    )
    .filter((text) => !text.startsWith('<') && !text.startsWith('#'));
}

/** The text of the wrapper Codex received as the last input item of request `index`. */
function wrapperSent(index: number): string {
  return JSON.stringify(provider.requests[index]?.body.input.at(-1));
}

// The real Codex binary runs commands in its own bubblewrap sandbox, which now and then fails to start on a
// loaded 2-core machine: one retry, so that only a failure that repeats fails the suite.
describe('forge run --engine codex', { retry: 1 }, () => {
  it('runs a turn on Codex in a session, prints the wrapper cost in --json, traces it, and resumes with the stored view on either engine', async () => {
    provider.push({
      items: [assistantMessage('The project has one agent file.')],
      usage: { inputTokens: 1800, outputTokens: 30 },
    });
    const first = await forge([
      'run',
      '--engine',
      'codex',
      '--model',
      `codex:${TEST_MODEL}`,
      '--json',
      'What is in this project?',
    ]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);

    const envelopes = first.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { sessionId?: string; runId: string; event: Record<string, unknown> });
    const types = envelopes.map((envelope) => envelope.event['type']);
    expect(types[0]).toBe('run.started');
    expect(types).toContain('codex.usage.recorded');
    expect(types.at(-1)).toBe('run.completed');
    const budgeted = envelopes.find((envelope) => envelope.event['type'] === 'codex.context.budgeted')?.event;
    expect(budgeted).toMatchObject({
      historyMessages: 0,
      hasCheckpoint: false,
      estimate: { method: 'conservative-fallback' },
    });
    expect(envelopes.map((envelope) => envelope.event)).toContainEqual(
      expect.objectContaining({ type: 'codex.thread.selected', how: 'started' }),
    );
    expect(
      envelopes.map((envelope) => envelope.event).find((event) => event['type'] === 'codex.thread.selected')?.[
        'fallback'
      ],
    ).toBeUndefined();
    const sessionId = envelopes[0]?.sessionId;
    const runId = envelopes[0]?.runId;
    if (sessionId === undefined || runId === undefined) throw new Error('the envelopes carry no session or run id');
    expect(new Set(envelopes.map((envelope) => envelope.sessionId))).toEqual(new Set([sessionId]));

    // A new session: the thread gets Forge's instructions as developer instructions, and the input is the request alone.
    expect(JSON.parse(wrapperSent(0))).toMatchObject({
      role: 'user',
      content: [{ type: 'input_text', text: 'What is in this project?' }],
    });
    expect(JSON.stringify(provider.requests[0]?.body)).toContain('Answer in one sentence.');
    expect(budgeted).toMatchObject({ input: 'request' });

    const trace = await readFile(path.join(forgeHome, 'runs', `${runId}.jsonl`), 'utf8');
    const traced = trace
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event: { type: string } }).event.type);
    expect(traced).toEqual(
      expect.arrayContaining(['run.started', 'codex.context.budgeted', 'codex.usage.recorded', 'run.completed']),
    );

    const stored = await showSession(sessionId);
    expect(stored.workspaceRoot).toBe(directories.workspace);
    expect(stored.messages).toEqual([
      { role: 'user', content: 'What is in this project?' },
      { role: 'assistant', content: [{ type: 'text', text: 'The project has one agent file.' }] },
    ]);
    expect(
      stored.runs.map((run) => [run.status, run.model?.provider, run.model?.modelId, run.usage?.inputTokens]),
    ).toEqual([['completed', 'codex', TEST_MODEL, 1800]]);

    provider.push({ items: [assistantMessage('You asked what is in the project.')] });
    // A new forge process: a new App Server, which loads the session's thread again with thread/resume.
    const second = await forge(['run', '--engine', 'codex', '--resume', sessionId, 'What did I ask before?']);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('You asked what is in the project.\n');
    expect(second.stderr).toContain("• codex: sent only the request to the session's Codex thread");
    expect(second.stderr).not.toContain('new Codex thread');
    const replayed = userTexts(1);
    expect(replayed).toEqual(['What is in this project?', 'What did I ask before?']);
    expect(JSON.stringify(provider.requests[1]?.body.input)).toContain('The project has one agent file.');
    expect(JSON.stringify(provider.requests[1]?.body.input)).not.toContain('[FORGE ACTIVE VIEW');
    const afterSecond = await showSession(sessionId);
    expect(afterSecond.runs.map((run) => run.engine?.thread?.id)).toEqual([
      afterSecond.runs[0]?.engine?.thread?.id,
      afterSecond.runs[0]?.engine?.thread?.id,
    ]);
    expect(afterSecond.runs[1]?.engine).toMatchObject({
      name: 'codex',
      version: '0.169.0',
      thread: { model: TEST_MODEL },
      context: { inputTokens: 1200 },
    });

    // Forge kept its own checkpoint of the whole session, so the native engine continues with every request.
    const native = new ScriptedModel([{ text: 'Natively resumed.' }]);
    const test = createTestIo({ cwd: directories.workspace, env: environment(), models: { main: native } });
    test.stdin.end();
    expect(
      await main(['node', 'forge', 'run', '--model', 'test:main', '--resume', sessionId, 'And now?'], test.io),
    ).toBe(0);
    const checkpoint = native.requests[0]?.checkpoint ?? '';
    expect(checkpoint).toContain('- earlier user request (user#0): What is in this project?');
    expect(checkpoint).toContain('- latest user request (user#2):\n  What did I ask before?');
    expect(checkpoint).toContain('You asked what is in the project.');
    expect(native.requests[0]?.history).toEqual([]);
    expect((await showSession(sessionId)).runs.map((run) => run.model?.provider)).toEqual([
      'codex',
      'codex',
      'scripted',
    ]);

    // Back on Codex after a native turn: the thread missed that turn, so a new one gets the bounded view.
    provider.push({ items: [assistantMessage('Back on Codex.')] });
    const third = await forge(['run', '--engine', 'codex', '--resume', sessionId, '--json', 'Back to Codex']);
    expect(third.code).toBe(0);
    const selected = third.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event: Record<string, unknown> }).event)
      .find((event) => event['type'] === 'codex.thread.selected');
    expect(selected).toMatchObject({ how: 'started', fallback: { reason: 'engine-switched' } });
    expect(wrapperSent(2)).toContain('[CHECKPOINT]');
    expect(wrapperSent(2)).toContain('Natively resumed.');
  }, 90_000);

  it("falls back to a new thread with the bounded view when the thread's rollout is gone, and says so", async () => {
    provider.push({ items: [assistantMessage('First.')] }, { items: [assistantMessage('Second, on a new thread.')] });
    const first = await forge([
      'run',
      '--engine',
      'codex',
      '--json',
      'Remember the word teal. Do not write any files.',
    ]);
    expect(first.code).toBe(0);
    const sessionId = (JSON.parse(first.stdout.split('\n')[0] ?? '{}') as { sessionId?: string }).sessionId ?? '';
    const stored = await showSession(sessionId);
    const rollout = stored.runs[0]?.engine?.thread?.rolloutPath;
    if (rollout === undefined || rollout === null) throw new Error('the run recorded no rollout');
    await rm(rollout);

    const second = await forge(['run', '--engine', 'codex', '--resume', sessionId, 'Which word?']);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('Second, on a new thread.\n');
    const after = await showSession(sessionId);
    const trace = await readFile(path.join(forgeHome, 'runs', `${after.runs[1]?.runId ?? ''}.jsonl`), 'utf8');
    const events = trace
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event: Record<string, unknown> }).event);
    const selected = events.find((event) => event['type'] === 'codex.thread.selected');
    expect(selected).toMatchObject({
      how: 'started',
      fallback: { reason: 'rollout-missing', message: expect.stringContaining(rollout) },
    });
    expect(second.stderr.split('\n').filter((line) => line.includes('new Codex thread'))).toEqual([
      expect.stringContaining(
        `codex: started a new Codex thread with Forge's bounded view: the thread's rollout ${rollout} is gone`,
      ),
    ]);
    const wrapper = wrapperSent(1);
    expect(wrapper).toContain('[FORGE ACTIVE VIEW v1]');
    expect(wrapper).toContain('Remember the word teal. Do not write any files.');
    expect(wrapper).toContain('- Do not write any files (from user#0)');
    expect(after.runs[1]?.engine?.thread?.id).not.toBe(after.runs[0]?.engine?.thread?.id);
  });

  it('compacts a Codex session through thread/compact/start with forge compact, recorded as engine-owned, and inspect shows what Codex reported per turn', async () => {
    provider.push(
      {
        items: [assistantMessage('First answer.')],
        usage: { inputTokens: 3100, outputTokens: 20, cachedTokens: 1000 },
      },
      { items: [assistantMessage('Summary: one question answered.')] },
    );
    const first = await forge(['run', '--engine', 'codex', '--json', 'A question']);
    const sessionId = (JSON.parse(first.stdout.split('\n')[0] ?? '{}') as { sessionId?: string }).sessionId ?? '';
    const compacted = await forge(['compact', '--session', sessionId, '--json']);
    expect(compacted.code).toBe(0);
    const document = JSON.parse(compacted.stdout) as { engine: string; outcome: { kind: string; threadId: string } };
    expect(document).toMatchObject({ engine: 'codex', outcome: { kind: 'compacted' } });
    expect(provider.requests).toHaveLength(2);
    const stored = await showSession(sessionId);
    expect(stored.runs.map((run) => [run.status, run.engine?.compactions])).toEqual([
      ['completed', 0],
      ['completed', 1],
    ]);
    expect(stored.runs[1]?.engine?.thread?.id).toBe(document.outcome.threadId);

    const shown = await forge(['sessions', 'show', sessionId]);
    expect(shown.stdout).toMatch(/3100 in \(1000 cached\) \/ 20 out tokens reported by Codex · thread \S+/);
    expect(shown.stdout).toContain('1 Codex compaction');

    // A session's inspect shows its newest run (the compaction) in full, and the turn with --run.
    const inspected = await forge(['inspect', sessionId]);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout).toContain('codex (engine-owned)');
    const turn = await forge(['inspect', sessionId, '--run', stored.runs[0]?.runId ?? '']);
    expect(turn.stdout).toContain('input 3,100');
    expect(turn.stdout).toContain('(reported by Codex)');
  });

  it('routes Codex command approvals through --approval: under ask the command is declined and Codex is told', async () => {
    provider.push(
      { items: [execCommandCall('call_touch', 'touch made-by-codex.txt')] },
      { items: [assistantMessage('I was not allowed to run it.')] },
    );
    const outcome = await forge(['run', '--engine', 'codex', 'Create a file']);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toMatch(
      /^forge: denied run .*touch made-by-codex\.txt.*: forge run cannot ask for approval/m,
    );
    await expect(readFile(path.join(directories.workspace, 'made-by-codex.txt'))).rejects.toThrow();
    const followUp = provider.requests[1]?.body.input ?? [];
    expect(
      JSON.stringify(
        followUp.find((item) => item['call_id'] === 'call_touch' && item['type'] === 'function_call_output'),
      ),
    ).toMatch(/rejected/);
  });

  it('cancels the Codex turn on Ctrl-C: exit 130, the request stored and the run recorded as cancelled', async () => {
    provider.push({ hang: true });
    const test = createTestIo({ cwd: directories.workspace, env: environment() });
    test.stdin.end();
    const exited = main(['node', 'forge', 'run', '--engine', 'codex', '--json', 'Take forever'], test.io);
    await provider.waitForRequests(1);
    test.interrupt();
    expect(await exited).toBe(130);
    const sessionId = (JSON.parse(test.stdout.text.split('\n')[0] ?? '{}') as { sessionId?: string }).sessionId;
    if (sessionId === undefined) throw new Error(`no session id in:\n${test.stdout.text}`);
    const stored = await showSession(sessionId);
    expect(stored.messages).toEqual([{ role: 'user', content: 'Take forever' }]);
    expect(stored.runs.map((run) => run.status)).toEqual(['cancelled']);
  });

  it('stops with one line and exit 2 when the Codex binary is missing, storing nothing', async () => {
    const missing = path.join(directories.root, 'no-such-codex');
    const outcome = await forge(['run', '--engine', 'codex', 'hello'], { FORGE_CODEX_BIN: missing });
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
    expect(outcome.stderr).toContain(
      `forge: error: The Codex executable named by FORGE_CODEX_BIN (${missing}) does not exist or is not executable`,
    );
    expect(outcome.stderr).toContain('install @openai/codex');
    const listed = await forge(['sessions', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it('refuses a native model id and --max-steps with the Codex engine', async () => {
    const model = await forge(['run', '--engine', 'codex', '--model', 'scripted:demo', 'hi']);
    expect(model.code).toBe(2);
    expect(model.stderr).toContain('pass --model codex:<model>');
    const steps = await forge(['run', '--engine', 'codex', '--max-steps', '3', 'hi']);
    expect(steps.code).toBe(2);
    expect(steps.stderr).toContain('--max-steps limits Forge');
  });
});

describe('the view a new Codex thread starts from', { retry: 1 }, () => {
  /** A session stored by the native engine: the first request states a constraint, later turns are long. */
  async function nativeSession(turns: number): Promise<string> {
    const messages: Message[] = [
      { role: 'user', content: 'Turn 0: fix the lexer. Do not change the test file.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Turn 0: understood.' }] },
    ];
    for (let turn = 1; turn < turns; turn += 1) {
      messages.push({
        role: 'user',
        content: `Turn ${turn}: look at the tokenizer again. ${'Explain each state of the machine. '.repeat(10)}`,
      });
      messages.push({
        role: 'assistant',
        content: [
          {
            type: 'text',
            text: `Turn ${turn}: ${'The classifier treats = as an operator only after an identifier. '.repeat(40)}`,
          },
        ],
      });
    }
    const writer = await createSession(forgeHome, { workspaceRoot: directories.workspace });
    await writer.appendMessages(messages);
    await writer.close();
    return writer.id;
  }

  /** The wrapper text of request `index`. */
  function wrapperText(index: number): string {
    const item = provider.requests[index]?.body.input.at(-1) as { content?: { text?: string }[] } | undefined;
    return (item?.content ?? []).map((part) => part.text ?? '').join('');
  }

  it("compacts a long session past compactAtRatio: the first turn's constraint reaches Codex through the checkpoint, the recent turns verbatim", async () => {
    const id = await nativeSession(40);
    provider.push({ items: [assistantMessage('Continuing on Codex.')] });
    const outcome = await forge(['run', '--engine', 'codex', '--resume', id, 'Carry on with the lexer.']);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toMatch(
      /codex: compacted the session before starting a new Codex thread \(forge-state\): messages \[0, \d+\) are now checkpoint \S+, ~[\d,]+ → ~[\d,]+ tokens/,
    );
    const wrapper = wrapperText(0);
    expect(wrapper).toContain('[CHECKPOINT]');
    expect(wrapper).toContain('Do not change the test file');
    const history = wrapper.slice(wrapper.indexOf('[HISTORY]'), wrapper.indexOf('[CURRENT REQUEST]'));
    expect(history).not.toContain('user:\nTurn 1:');
    expect(history).toContain('user:\nTurn 39:');
    // Under the 32,768-token fallback window (Codex has not reported one for this session yet).
    expect(wrapper.length).toBeLessThan(32_768 * 3);
    const stored = await showSession(id);
    expect(stored.checkpoint?.checkpoint).toMatchObject({ strategy: 'forge-state' });
  }, 60_000);

  it('sends a short session whole, verbatim, with no checkpoint', async () => {
    const id = await nativeSession(3);
    provider.push({ items: [assistantMessage('Continuing on Codex.')] });
    const outcome = await forge(['run', '--engine', 'codex', '--resume', id, 'Carry on with the lexer.']);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).not.toContain('compacted the session');
    const wrapper = wrapperText(0);
    expect(wrapper).not.toContain('[CHECKPOINT]');
    expect(wrapper).toContain('user:\nTurn 0: fix the lexer. Do not change the test file.');
    expect(wrapper).toContain('user:\nTurn 2:');
  }, 60_000);
});

describe('the REPL with --engine codex', { retry: 1 }, () => {
  it('runs each turn on Codex, asks before a command runs, and stores the conversation', async () => {
    provider.push(
      { items: [execCommandCall('call_write', 'printf approved > approved.txt')] },
      { items: [assistantMessage('Wrote approved.txt.')] },
      { items: [assistantMessage('Second turn answered.')] },
    );
    const test = createTestIo({ cwd: directories.workspace, env: environment() });
    const exited = main(['node', 'forge', '--engine', 'codex'], test.io);
    const output = () => test.stdout.text;
    await waitFor(output, (text) => text.includes('Type a request'), 20_000);
    expect(output()).toContain(`· codex:(Codex configuration) · approval ask · ${directories.workspace}`);
    test.stdin.write('write the file\n');
    await waitFor(output, (text) => /Allow command\? run .*printf approved > approved\.txt/.test(text), 20_000);
    test.stdin.write('y\n');
    await waitFor(output, (text) => text.includes('Wrote approved.txt.'), 20_000);
    test.stdin.write('and again\n');
    await waitFor(output, (text) => text.includes('Second turn answered.'), 20_000);
    test.stdin.write('/compact\n');
    await waitFor(output, (text) => text.includes('Codex compacted its context'), 20_000);
    expect(provider.requests).toHaveLength(4);
    test.stdin.write('/exit\n');
    expect(await exited).toBe(0);

    expect(await readFile(path.join(directories.workspace, 'approved.txt'), 'utf8')).toBe('approved');
    // The second turn continued the thread: Codex replayed the first turn from its own history.
    expect(userTexts(2)).toEqual(['write the file', 'and again']);
    expect(JSON.stringify(provider.requests[2]?.body.input)).toContain('Wrote approved.txt.');
    expect(JSON.stringify(provider.requests[2]?.body.input)).not.toContain('[FORGE ACTIVE VIEW');
    const sessionId = /session (session_[A-Za-z0-9_-]+)/.exec(output())?.[1];
    if (sessionId === undefined) throw new Error(`no session in the banner:\n${output()}`);
    const stored = await showSession(sessionId);
    expect(stored.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(stored.runs.map((run) => [run.status, run.engine?.compactions])).toEqual([
      ['completed', 0],
      ['completed', 0],
      ['completed', 1],
    ]);
  }, 60_000);
});
