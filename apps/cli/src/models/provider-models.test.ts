import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';

/*
 * `forge run` against real adapters: the AI SDK speaking HTTP to a loopback server on 127.0.0.1
 * that answers in each provider's wire protocol. Nothing leaves the machine.
 */

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;
let provider: LoopbackProvider;

beforeAll(async () => {
  workspace = await temporaryDirectory();
  forgeHome = await temporaryDirectory('forge-home-');
  await writeFile(path.join(workspace.path, 'NOTES.md'), 'The release is on Friday.\n');
  provider = await startLoopbackProvider({ chatUsageStyle: 'deepseek' });
});

afterAll(async () => {
  await provider.close();
  await workspace.remove();
  await forgeHome.remove();
});

const run = (args: readonly string[], env: Record<string, string>) =>
  runCli(args, { cwd: workspace.path, env: { FORGE_HOME: forgeHome.path, ...env } });

describe('forge run with provider adapters over HTTP', () => {
  it('runs an OpenAI Responses model: streams text, runs a tool, sends the result back', async () => {
    provider.enqueue(
      turn({
        toolCalls: [{ name: 'read_file', arguments: { path: 'NOTES.md' }, callId: 'call_a' }],
        usage: { inputTokens: 900, outputTokens: 20 },
      }),
      turn({
        text: ['The release ', 'is on Friday.'],
        usage: { inputTokens: 1000, cachedInputTokens: 800, outputTokens: 9 },
      }),
    );
    const before = provider.requests.length;
    const outcome = await run(['run', '--model', 'openai:gpt-5', 'When is the release?'], {
      OPENAI_API_KEY: 'sk-test-key',
      OPENAI_BASE_URL: provider.baseURL,
    });
    expect(outcome.stderr).not.toContain('error');
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('The release is on Friday.');
    const sent = provider.requests.slice(before);
    expect(sent.map((request) => request.path)).toEqual(['/v1/responses', '/v1/responses']);
    expect(sent[0]?.headers.authorization).toBe('Bearer sk-test-key');
    const second = JSON.stringify(sent[1]?.body);
    expect(second).toContain('function_call_output');
    expect(second).toContain('The release is on Friday.');
  });

  it('runs a DeepSeek model over Chat Completions', async () => {
    provider.enqueue(
      turn({ text: 'Hello from DeepSeek.', usage: { inputTokens: 50, cachedInputTokens: 10, outputTokens: 4 } }),
    );
    const before = provider.requests.length;
    const outcome = await run(['run', '--json', '--model', 'deepseek:deepseek-chat', 'Say hello'], {
      DEEPSEEK_API_KEY: 'sk-deepseek-test',
      DEEPSEEK_BASE_URL: provider.baseURL,
    });
    expect(outcome.code).toBe(0);
    expect(provider.requests.slice(before).map((request) => request.path)).toEqual(['/v1/chat/completions']);
    const events = outcome.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: { type: string; usage?: { cacheReadTokens?: number } } });
    const completed = events.find((envelope) => envelope.event.type === 'model.step.completed');
    expect(completed?.event.usage?.cacheReadTokens).toBe(10);
    expect(events.at(-1)?.event.type).toBe('run.completed');
  });

  it('keeps the API key out of the stored session and trace', async () => {
    provider.enqueue(turn({ text: 'ok' }));
    const key = 'sk-proj-abcdefghijklmnopqrstuvwx1234567890';
    const outcome = await run(['run', '--model', 'openai:gpt-5', `my key is ${key}`], {
      OPENAI_API_KEY: key,
      OPENAI_BASE_URL: provider.baseURL,
    });
    expect(outcome.code).toBe(0);
    const sessionId = /session: (\S+)/.exec(outcome.stderr)?.[1];
    expect(sessionId).toBeDefined();
    const log = readFileSync(path.join(forgeHome.path, 'sessions', sessionId ?? '', 'session.jsonl'), 'utf8');
    expect(log).not.toContain(key);
    expect(log).toContain('REDACTED');
  });
});
