import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ModelStreamPart } from '@forge/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../test-support/cli-harness.js';
import { resolveModel } from './resolve-model.js';

let directory: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  directory = await temporaryDirectory('forge-scripted-file-');
});

afterEach(async () => {
  await directory.remove();
});

const request = {
  instructions: 'i',
  history: [],
  currentRequest: { role: 'user' as const, content: 'hi' },
  continuation: [],
  tools: [],
};

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const all: ModelStreamPart[] = [];
  for await (const part of parts) all.push(part);
  return all;
}

describe('scripted:file (the FORGE_TEST_MODEL_SCRIPT test hook)', () => {
  it('exists only while the variable names a script', async () => {
    await expect(resolveModel('scripted:file', { env: {} })).rejects.toThrow(
      'unknown scripted model "file"; the scripted provider offers: demo',
    );
  });

  it('plays the script in order, pacing the parts of a reply by its delayMs', async () => {
    const script = path.join(directory.path, 'script.json');
    await writeFile(
      script,
      JSON.stringify([
        { text: 'abcd', textChunks: 2, delayMs: 30 },
        { toolCalls: [{ toolName: 'read_file', input: { path: 'a' } }] },
      ]),
    );
    const model = await resolveModel('scripted:file', { env: { FORGE_TEST_MODEL_SCRIPT: script } });
    const started = Date.now();
    const first = await collect(model.doStream(request, {}));
    expect(Date.now() - started).toBeGreaterThanOrEqual(80);
    expect(first.filter((part) => part.type === 'text-delta').map((part) => part.delta)).toEqual(['ab', 'cd']);
    const second = await collect(model.doStream(request, {}));
    expect(second.find((part) => part.type === 'tool-call')).toMatchObject({
      part: { toolName: 'read_file', input: { path: 'a' } },
    });
  });

  it('names the script and the problem when it cannot be used', async () => {
    const script = path.join(directory.path, 'bad.json');
    await writeFile(script, JSON.stringify([{ txt: 'typo' }]));
    await expect(resolveModel('scripted:file', { env: { FORGE_TEST_MODEL_SCRIPT: script } })).rejects.toThrow(
      `the model script ${script} (FORGE_TEST_MODEL_SCRIPT) cannot be used`,
    );
  });
});
