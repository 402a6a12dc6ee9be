import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup } from './support/bundle.js';

/*
 * Each provider adapter inside the bundle, through the real AI SDK over real HTTP to the loopback
 * server on 127.0.0.1 speaking that provider's wire protocol: a tool call, its result sent back,
 * the answer streamed, usage and the key kept out of what is stored.
 */

const fixture = useBundle('bundle-adapters');
let provider: LoopbackProvider;

beforeAll(async () => {
  provider = await startLoopbackProvider({ chatUsageStyle: 'deepseek' });
});

afterAll(async () => {
  await provider.close();
});

interface AdapterCase {
  readonly name: string;
  readonly model: string;
  readonly path: string;
  readonly env: (key: string) => Record<string, string>;
  /** FORGE_HOME/config.json, when the adapter needs one. */
  readonly config?: () => Record<string, unknown>;
}

const adapters: readonly AdapterCase[] = [
  {
    name: 'openai',
    model: 'openai:gpt-5',
    path: '/v1/responses',
    env: (key) => ({ OPENAI_API_KEY: key, OPENAI_BASE_URL: provider.baseURL }),
  },
  {
    name: 'deepseek',
    model: 'deepseek:deepseek-chat',
    path: '/v1/chat/completions',
    env: (key) => ({ DEEPSEEK_API_KEY: key, DEEPSEEK_BASE_URL: provider.baseURL }),
  },
  {
    name: 'compatible',
    model: 'compatible:loopback',
    path: '/v1/chat/completions',
    env: (key) => ({ LOOPBACK_KEY: key }),
    config: () => ({
      models: [
        {
          name: 'loopback',
          baseURL: provider.baseURL,
          modelId: 'qwen2.5-coder:7b',
          contextWindowTokens: 32_768,
          apiKeyVariable: 'LOOPBACK_KEY',
        },
      ],
    }),
  },
];

describe('the bundled forge with each provider adapter over HTTP', () => {
  for (const adapter of adapters) {
    it(`${adapter.name}: a tool call, its result sent back, the streamed answer, usage recorded, the key not stored`, async () => {
      const user = await userSetup(fixture, `adapter-${adapter.name}`);
      await writeFile(path.join(user.workspace, 'NOTES.md'), 'The release is on Friday.\n');
      if (adapter.config !== undefined) await user.writeConfig(adapter.config());
      const key = `sk-${adapter.name}-abcdefghijklmnopqrstuvwxyz0123456789`;
      provider.enqueue(
        turn({
          toolCalls: [{ name: 'read_file', arguments: { path: 'NOTES.md' }, callId: `call_${adapter.name}` }],
          usage: { inputTokens: 900, outputTokens: 20 },
        }),
        turn({
          text: ['The release ', 'is on Friday.'],
          usage: { inputTokens: 1000, cachedInputTokens: 800, outputTokens: 9 },
        }),
      );
      const before = provider.requests.length;

      const run = await user.forge(['run', '--model', adapter.model, 'When is the release?'], adapter.env(key));
      expect(run.stderr).not.toContain('error');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('The release is on Friday.');

      const sent = provider.requests.slice(before);
      expect(sent.map((request) => request.path)).toEqual([adapter.path, adapter.path]);
      expect(sent[0]?.headers.authorization).toBe(`Bearer ${key}`);
      expect(sent[1]?.rawBody).toContain('The release is on Friday.');

      const sessionId = sessionIdOf(run.stderr);
      const session = await user.session(sessionId);
      expect(toolResultTexts(session.messages)).toHaveLength(1);
      expect(session.runs.map((stored) => [stored.status, stored.usage?.inputTokens])).toEqual([['completed', 1900]]);
      const log = await readFile(path.join(user.forgeHome, 'sessions', sessionId, 'session.jsonl'), 'utf8');
      expect(log).not.toContain(key);
    });
  }
});
