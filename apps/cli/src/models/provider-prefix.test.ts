import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { expectRequestsExtendEachOther } from '@forge/loopback-provider/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';

/*
 * The request prefix as a session really sends it: `forge run` and then `forge run --resume` in
 * new processes' worth of state — history read back from the session store, instructions loaded
 * again, the workspace tools — against the loopback server. Each request must start with the
 * whole of the one before it, and all of them share one prompt cache key.
 */

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;
let provider: LoopbackProvider;

beforeAll(async () => {
  workspace = await temporaryDirectory('forge-prefix-');
  forgeHome = await temporaryDirectory('forge-prefix-home-');
  await writeFile(path.join(workspace.path, 'AGENTS.md'), 'Answer in one sentence.\n');
  await writeFile(path.join(workspace.path, 'NOTES.md'), 'The release is on Friday.\nThe demo is on Monday.\n');
  provider = await startLoopbackProvider({ chatUsageStyle: 'deepseek', promptCache: {} });
});

afterAll(async () => {
  await provider.close();
  await workspace.remove();
  await forgeHome.remove();
});

const forge = (args: readonly string[], env: Record<string, string>) =>
  runCli(args, { cwd: workspace.path, env: { FORGE_HOME: forgeHome.path, ...env } });

const readNotes = (callId: string) =>
  turn({
    toolCalls: [{ name: 'read_file', arguments: { path: 'NOTES.md' }, callId }],
    usage: { inputTokens: 0, outputTokens: 10 },
  });

describe('a session sends requests that only grow at the end', () => {
  for (const [model, env] of [
    ['openai:gpt-5.1', { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: '' }],
    ['deepseek:deepseek-v4-pro', { DEEPSEEK_API_KEY: 'sk-test', DEEPSEEK_BASE_URL: '' }],
  ] as const) {
    it(`${model}: across a tool-call step and a resumed turn, with one prompt cache key`, async () => {
      const variables = Object.fromEntries(
        Object.entries(env).map(([name, value]) => [name, value === '' ? provider.baseURL : value]),
      );
      const before = provider.requests.length;
      provider.enqueue(readNotes('call_one'), turn({ text: 'Friday.', usage: { inputTokens: 0, outputTokens: 3 } }));
      const first = await forge(['run', '--model', model, 'When is the release?'], variables);
      expect(first.code).toBe(0);
      const sessionId = /session: (\S+)/.exec(first.stderr)?.[1] ?? '';
      provider.enqueue(readNotes('call_two'), turn({ text: 'Monday.', usage: { inputTokens: 0, outputTokens: 3 } }));
      const second = await forge(['run', '--model', model, '--resume', sessionId, 'And the demo?'], variables);
      expect(second.code).toBe(0);

      const requests = provider.requests.slice(before);
      expect(requests).toHaveLength(4);
      expectRequestsExtendEachOther(requests);
      const keys = new Set(
        requests.map((request) => (request.body as { prompt_cache_key?: unknown }).prompt_cache_key),
      );
      expect(keys.size).toBe(1);
      expect([...keys][0] === undefined).toBe(model.startsWith('deepseek:'));
    });
  }
});
