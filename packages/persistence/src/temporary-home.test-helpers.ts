import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Message } from '@forge/core';

/** A fresh FORGE_HOME under the system temp directory, removed after the test. */
export function useTemporaryHome(): () => Promise<string> {
  const created: string[] = [];
  afterEach(async () => {
    await Promise.all(created.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
  });
  return async () => {
    const directory = await mkdtemp(join(tmpdir(), 'forge-persistence-'));
    created.push(directory);
    return join(directory, 'home');
  };
}

/** A small realistic transcript: a user turn, a tool exchange with reasoning, an answer. */
export function sampleTranscript(): Message[] {
  return [
    { role: 'user', content: 'Find the failing test and fix it.' },
    {
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'Look at the test output first.',
          providerMetadata: { openai: { itemId: 'rs_1', encryptedContent: 'gAAAAB…' } },
        },
        { type: 'tool-call', toolCallId: 'call_1', toolName: 'run_command', input: { command: 'npm test' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_1',
          toolName: 'run_command',
          output: { type: 'json', value: { exitCode: 1, stdout: '1 failing: adds numbers' } },
          metadata: { durationMs: 1200 },
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'The `add` function subtracts. Fixed it in src/math.ts.' }] },
    { role: 'user', content: 'Thanks — now run the linter.\nAnd report.' },
  ];
}
