import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ensureTmux, TmuxTerminal } from '@forge/cli/testing-terminal';
import type { Message } from '@forge/core';
import { createSession } from '@forge/persistence';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { expectRequestsExtendEachOther } from '@forge/loopback-provider/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup } from './support/bundle.js';

/*
 * `forge run --model anthropic:<id>` from the bundle, through @ai-sdk/anthropic over real HTTP to
 * the loopback server speaking the Messages API: a tool round trip, a second turn with --resume,
 * the breakpoints on every request, and forge inspect pricing what Anthropic reports as written
 * and read at the table's rates; then server compaction as the provider-native strategy.
 */

const fixture = useBundle('bundle-anthropic');
let provider: LoopbackProvider;

beforeAll(async () => {
  provider = await startLoopbackProvider();
});

afterAll(async () => {
  await provider.close();
});

type Block = Record<string, unknown>;
type Body = { system?: Block[]; messages: { content: Block[] }[] };

const MODEL = 'anthropic:claude-sonnet-4-6';

function breakpoints(body: Body): unknown[] {
  return [...(body.system ?? []), ...body.messages.flatMap((message) => message.content)]
    .map((block) => block['cache_control'])
    .filter((control) => control !== undefined);
}

describe('the bundled forge with the Anthropic adapter over HTTP', () => {
  it('runs two turns with a tool, resumes, marks breakpoints, and inspect prices writes and reads', async () => {
    const user = await userSetup(fixture, 'anthropic');
    await writeFile(path.join(user.workspace, 'NOTES.md'), 'The release is on Friday.\n');
    await user.writeConfig({ anthropic: { cacheLifetime: '1h' } });
    const key = 'sk-ant-abcdefghijklmnopqrstuvwxyz0123456789';
    const env = { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: provider.baseURL };
    provider.enqueue(
      turn({
        reasoning: 'Read the notes first.',
        encryptedReasoning: 'sig-bundle-1',
        toolCalls: [{ name: 'read_file', arguments: { path: 'NOTES.md' }, callId: 'toolu_notes' }],
        usage: { inputTokens: 5000, cacheWriteTokens: 4000, outputTokens: 20 },
      }),
      turn({
        text: ['The release ', 'is on Friday.'],
        usage: { inputTokens: 5200, cachedInputTokens: 4000, cacheWriteTokens: 1100, outputTokens: 9 },
      }),
      turn({
        text: 'Friday, still.',
        usage: { inputTokens: 5400, cachedInputTokens: 5100, cacheWriteTokens: 250, outputTokens: 5 },
      }),
    );

    const first = await user.forge(['run', '--model', MODEL, 'When is the release?'], env);
    expect(first.stderr).not.toContain('error');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('The release is on Friday.');
    const sessionId = sessionIdOf(first.stderr);

    const second = await user.forge(['run', '--model', MODEL, '--resume', sessionId, 'Still Friday?'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Friday, still.');

    const sent = provider.requests.slice(-3);
    expect(sent.map((request) => request.path)).toEqual(['/v1/messages', '/v1/messages', '/v1/messages']);
    for (const request of sent) {
      expect(request.headers['x-api-key']).toBe(key);
      expect(request.headers['authorization']).toBeUndefined();
      expect(breakpoints(request.body as Body)).toEqual([
        { type: 'ephemeral', ttl: '1h' },
        { type: 'ephemeral', ttl: '1h' },
      ]);
    }
    // The resumed turn repeats the first turn's requests, thinking signature included: the cached prefix holds.
    expectRequestsExtendEachOther(sent);
    expect(sent[2]?.rawBody).toContain('"signature":"sig-bundle-1"');

    const session = await user.session(sessionId);
    expect(toolResultTexts(session.messages)).toEqual([expect.stringContaining('The release is on Friday.')]);
    expect(session.runs.map((run) => run.status)).toEqual(['completed', 'completed']);

    const inspected = await user.forge(['inspect', sessionId, '--json']);
    expect(inspected.code).toBe(0);
    const report = JSON.parse(inspected.stdout) as {
      runs: { usage: Block; cost?: { total: number; cacheWrite: number; cachedInput: number } }[];
    };
    expect(report.runs[0]?.usage).toMatchObject({ inputTokens: 10_200, cacheReadTokens: 4000, cacheWriteTokens: 5100 });
    // claude-sonnet-4-6 with 1-hour breakpoints: $3 fresh, $6 written, $0.30 read, $15 output per million.
    const firstCost = report.runs[0]?.cost;
    expect(firstCost?.cacheWrite).toBeCloseTo((5100 * 6) / 1e6, 12);
    expect(firstCost?.cachedInput).toBeCloseTo((4000 * 0.3) / 1e6, 12);
    expect(firstCost?.total).toBeCloseTo((1100 * 3 + 5100 * 6 + 4000 * 0.3 + 29 * 15) / 1e6, 12);

    const text = await user.forge(['inspect', sessionId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/written/);
    expect(text.stdout).toMatch(/\$6 cache write/);
    expect(JSON.stringify(session)).not.toContain(key);
  });

  it('shows in the REPL footer what the turn cost, cache writes charged at their premium', async () => {
    ensureTmux();
    const user = await userSetup(fixture, 'anthropic-repl');
    provider.enqueue(
      turn({
        text: 'Friday.',
        usage: { inputTokens: 5000, cachedInputTokens: 4000, cacheWriteTokens: 900, outputTokens: 10 },
      }),
    );
    const terminal = TmuxTerminal.start({
      command: [process.execPath, fixture.bundle().bin, '--model', MODEL],
      cwd: user.workspace,
      env: {
        ...user.env,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ANTHROPIC_BASE_URL: provider.baseURL,
        TERM: 'xterm-256color',
        NO_COLOR: '1',
      },
      columns: 160,
    });
    try {
      await terminal.waitFor((screen) => screen.includes('Type a request'), 20_000, 'the REPL banner');
      terminal.enter('When is the release?');
      // claude-sonnet-4-6, 5-minute writes: 100 fresh × $3 + 4,000 read × $0.30 + 900 written × $3.75 + 10 out × $15 per 1M.
      const screen = await terminal.waitFor((text) => text.includes('so far'), 20_000, 'the footer with the cost');
      expect(screen).toContain('Friday.');
      expect(screen).toMatch(/anthropic:claude-sonnet-4-6 · mode compact · .*\$0\.00502 so far/);
    } finally {
      terminal.close();
    }
  });

  it('compacts on the server with --strategy provider-native and replays the block on the next turn', async () => {
    const user = await userSetup(fixture, 'anthropic-native');
    await user.writeConfig({ model: MODEL, context: { providerNative: { persist: true } } });
    const writer = await createSession(user.forgeHome, { workspaceRoot: user.workspace });
    await writer.appendMessages(longConversation());
    await writer.close();
    const env = { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: provider.baseURL };

    provider.enqueue({
      type: 'compaction',
      encryptedContent: 'sig-server-compaction',
      summary: 'Keep the lexer API stable.',
    });
    const compacted = await user.forge(
      ['compact', '--session', writer.id, '--strategy', 'provider-native', '--json'],
      env,
    );
    expect(compacted.stderr).toBe('');
    expect(compacted.code).toBe(0);
    expect(JSON.parse(compacted.stdout)).toMatchObject({ outcome: 'compacted', strategy: 'provider-native' });
    const asked = provider.requests.at(-1);
    expect(asked?.path).toBe('/v1/messages');
    expect(asked?.body).toMatchObject({ compaction: { type: 'summarize' } });

    provider.enqueue(turn({ text: 'Continuing from the compaction.' }));
    const continued = await user.forge(['run', '--resume', writer.id, 'What did we agree about the API?'], env);
    expect(continued.code).toBe(0);
    expect(continued.stdout).toContain('Continuing from the compaction.');
    const replaying = provider.requests.at(-1)?.body as Body;
    expect(replaying.messages[0]?.content[0]).toEqual({
      type: 'compaction',
      content: 'Keep the lexer API stable.',
      signature: 'sig-server-compaction',
      cache_control: { type: 'ephemeral', ttl: '5m' },
    });
    expect(JSON.stringify(replaying)).not.toContain('[SESSION_CHECKPOINT v1]');
  });
});

/** Thirty long turns: more than the recent tail keeps. */
function longConversation(): Message[] {
  return Array.from({ length: 30 }, (_, index): Message[] => [
    { role: 'user', content: `Turn ${index}: keep the lexer's public API stable. ${'Explain each step. '.repeat(40)}` },
    {
      role: 'assistant',
      content: [{ type: 'text', text: `Turn ${index}: done. ${'Detail of the state machine. '.repeat(40)}` }],
    },
  ]).flat();
}
