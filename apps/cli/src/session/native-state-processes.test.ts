import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Message } from '@forge/core';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { createSession, nativeStateDirectory } from '@forge/persistence';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompactionDocument } from './compaction-output.js';
import { temporaryDirectory } from '../test-support/cli-harness.js';
import { buildPrivateBinary, spawnForge } from '../test-support/private-build.js';

/*
 * Provider-native compaction state across processes, through the built binary and real HTTP to the
 * loopback server (OpenAI Responses protocol): with context.providerNative.persist, the compaction
 * item one `forge` process paid for is sent, byte for byte, by the next one; when the provider
 * refuses it, it is discarded and never sent again.
 */

let build: ReturnType<typeof buildPrivateBinary>;
let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;
let provider: LoopbackProvider;

beforeAll(async () => {
  build = buildPrivateBinary('native-state-test');
  workspace = await temporaryDirectory('forge-native-state-');
  forgeHome = await temporaryDirectory('forge-native-state-home-');
  provider = await startLoopbackProvider();
}, 180_000);

afterAll(async () => {
  await provider.close();
  await workspace.remove();
  await forgeHome.remove();
  build.remove();
});

function forge(args: readonly string[], baseURL = provider.baseURL) {
  return spawnForge(build.bin, args, {
    cwd: workspace.path,
    env: {
      PATH: process.env.PATH ?? '',
      FORGE_HOME: forgeHome.path,
      OPENAI_API_KEY: 'sk-test-key',
      OPENAI_BASE_URL: baseURL,
    },
    timeoutMs: 60_000,
  });
}

/** Thirty turns of about 700 o200k tokens each: more than the recent tail keeps. */
function conversation(): Message[] {
  const messages: Message[] = [];
  for (let index = 0; index < 30; index += 1) {
    messages.push({
      role: 'user',
      content: `Turn ${index}: keep the lexer's public API stable. ${'Explain each step of the tokenizer. '.repeat(25)}`,
    });
    messages.push({
      role: 'assistant',
      content: [
        {
          type: 'text',
          text: `Turn ${index}: the classifier treats = as an operator after an identifier. ${'Detail of the state machine. '.repeat(40)}`,
        },
      ],
    });
  }
  return messages;
}

describe('provider-native state across processes (built binary, loopback Responses server)', () => {
  it('is replayed byte for byte by the next process, and discarded once the provider refuses it', async () => {
    await mkdir(forgeHome.path, { recursive: true });
    await writeFile(
      path.join(forgeHome.path, 'config.json'),
      JSON.stringify({
        schemaVersion: 1,
        model: 'openai:gpt-5.1',
        context: { compaction: { strategy: 'provider-native' }, providerNative: { persist: true } },
      }),
    );
    const writer = await createSession(forgeHome.path, { workspaceRoot: workspace.path });
    await writer.appendMessages(conversation());
    await writer.close();
    const id = writer.id;

    // Process 1 pays for the compaction.
    provider.enqueue({ type: 'compaction', encryptedContent: 'opaque-from-process-one', itemId: 'cmp_process_one' });
    const compacted = await forge(['compact', '--session', id, '--json']);
    expect(compacted.stderr).toBe('');
    expect(compacted.code).toBe(0);
    expect(JSON.parse(compacted.stdout) as CompactionDocument).toMatchObject({
      outcome: 'compacted',
      strategy: 'provider-native',
    });
    expect(provider.requests.at(-1)?.path).toBe('/v1/responses/compact');
    const directory = nativeStateDirectory(forgeHome.path);
    const file = path.join(directory, id, 'main.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(directory, id))).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(await readFile(file, 'utf8')) as { state: { items: Record<string, unknown>[] } };
    const items = stored.state.items;
    expect(items.at(-1)).toEqual({
      id: 'cmp_process_one',
      type: 'compaction',
      encrypted_content: 'opaque-from-process-one',
    });

    // Process 2 continues the session and sends the item as the provider returned it.
    provider.enqueue(turn({ text: 'Continuing from the compacted context.' }));
    const continued = await forge(['run', '--resume', id, 'What did we agree about the API?']);
    expect(continued.stderr).not.toContain('error');
    expect(continued.code).toBe(0);
    const replaying = provider.requests.at(-1);
    expect(replaying?.path).toBe('/v1/responses');
    expect(replaying?.rawBody).toContain(JSON.stringify(items).slice(1, -1));
    expect(replaying?.rawBody).not.toContain('[SESSION_CHECKPOINT v1]');

    // Process 3 meets a provider that cannot verify the item: the request fails and the state goes.
    const stranger = await startLoopbackProvider();
    try {
      const refused = await forge(['run', '--resume', id, 'And the tests?'], stranger.baseURL);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('could not be verified');
      expect(stranger.requests).toHaveLength(1);
      expect(stranger.requests[0]?.rawBody).toContain('opaque-from-process-one');
    } finally {
      await stranger.close();
    }
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });

    // Process 4 sends the portable checkpoint instead, and never the refused item.
    provider.enqueue(turn({ text: 'Working from the checkpoint.' }));
    const after = await forge(['run', '--resume', id, 'Carry on.']);
    expect(after.code).toBe(0);
    const portable = provider.requests.at(-1)?.rawBody ?? '';
    expect(portable).not.toContain('opaque-from-process-one');
    expect(portable).toContain('[SESSION_CHECKPOINT v1]');
  }, 240_000);
});
