import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { sha256Hex, type Message } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { createSession, MAIN_LANE, OpaqueStateStore, nativeStateDirectory } from '@forge/persistence';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTextRenderer } from '../output/event-renderer.js';
import { createStyle } from '../output/style.js';
import type { CompactionDocument } from './compaction-output.js';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';

/*
 * `context.compaction` drives every compaction of a session: `forge compact` without --strategy and
 * the automatic compaction of `forge run`. The compactor is named once, and its failure falls back to
 * forge-state with one line.
 */

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-compaction-config-');
  forgeHome = await temporaryDirectory('forge-compaction-config-home-');
});

afterEach(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

/** `turns` turns of about 1,000 tokens each by the conservative estimate. */
function longConversation(turns: number): Message[] {
  const messages: Message[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push({ role: 'user', content: `Request ${turn}: ${'please look at this code '.repeat(40)}` });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `Answer ${turn}: ${'done '.repeat(60)}` }] });
  }
  return messages;
}

async function storedSession(messages: readonly Message[]): Promise<string> {
  const writer = await createSession(forgeHome.path, { workspaceRoot: workspace.path });
  await writer.appendMessages(messages);
  await writer.close();
  return writer.id;
}

async function userConfig(value: unknown): Promise<void> {
  await mkdir(forgeHome.path, { recursive: true });
  await writeFile(path.join(forgeHome.path, 'config.json'), JSON.stringify({ schemaVersion: 1, ...(value as object) }));
}

const disclosure =
  /Compaction sends the summarized conversation to test:compactor: ~[\d,]+ input tokens and at most [\d,]+ output tokens per compaction\./;

describe('context.compaction', () => {
  it('is the strategy of forge compact without --strategy: the configured compactor receives the conversation, and a malformed reply falls back to forge-state', async () => {
    await userConfig({ context: { compaction: { strategy: 'model-structured', model: 'test:compactor' } } });
    const id = await storedSession(longConversation(40));
    const compactor = new ScriptedModel([{ text: 'not json' }], { provider: 'test', modelId: 'compactor' });
    const result = await runCli(['compact', '--session', id, '--json'], {
      cwd: workspace.path,
      env: { FORGE_HOME: forgeHome.path },
      models: { compactor },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(disclosure);
    expect(compactor.requests).toHaveLength(1);
    const document = JSON.parse(result.stdout) as CompactionDocument;
    expect(document).toMatchObject({ outcome: 'compacted', strategy: 'forge-state' });
    expect(document.events.map((event) => event.type)).toEqual([
      'context.compaction.started',
      'context.compaction.failed',
      'context.compaction.completed',
    ]);
  });

  it('drives the automatic compaction of forge run: the compactor is named once, its failure is one line, and the turn goes on with forge-state', async () => {
    await userConfig({ context: { compaction: { strategy: 'model-structured', model: 'test:compactor' } } });
    const id = await storedSession(longConversation(40));
    const compactor = new ScriptedModel([{ error: new Error('compactor offline') }], {
      provider: 'test',
      modelId: 'compactor',
    });
    const main = new ScriptedModel([{ text: 'carried on' }], {
      provider: 'test',
      modelId: 'main',
      capabilities: { contextWindowTokens: 24_000 },
    });
    const result = await runCli(['run', '--resume', id, '--model', 'test:main', 'next step'], {
      cwd: workspace.path,
      env: { FORGE_HOME: forgeHome.path },
      models: { compactor, main },
    });
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('carried on');
    expect(compactor.requests).toHaveLength(1);
    expect(result.stderr.split('\n').filter((line) => disclosure.test(line))).toHaveLength(1);
    expect(result.stderr).toMatch(
      /context: the model-structured compaction failed \([a-z_]+: [^)]*compactor offline[^)]*\); the deterministic forge-state checkpoint is used instead/,
    );
    expect(result.stderr).toMatch(/context: compacted \(forge-state, /);
  });

  it('forgets stored provider-native states once persistence is turned off: they hold the conversation in plain text', async () => {
    const id = await storedSession(longConversation(2));
    const directory = nativeStateDirectory(forgeHome.path);
    const state = {
      provider: 'openai',
      modelId: 'gpt-5.1',
      itemHash: sha256Hex('[]'),
      bytes: 2,
      items: [],
      sourceHash: sha256Hex('s'),
      sourceMessages: 0,
      previousItemHash: null,
    };
    await new OpaqueStateStore({ directory, persist: true }).save({ sessionId: id, lane: MAIN_LANE }, state);
    await userConfig({ context: { compaction: { strategy: 'provider-native' }, providerNative: { persist: true } } });
    const main = new ScriptedModel([{ text: 'one' }, { text: 'two' }], { provider: 'test', modelId: 'main' });
    const run = (request: string) =>
      runCli(['run', '--resume', id, '--model', 'test:main', request], {
        cwd: workspace.path,
        env: { FORGE_HOME: forgeHome.path },
        models: { main },
      });
    expect((await run('first')).code).toBe(0);
    expect(await readdir(path.join(directory, id))).toEqual(['main.json']);
    await userConfig({ context: { compaction: { strategy: 'provider-native' }, providerNative: { persist: false } } });
    expect((await run('second')).code).toBe(0);
    await expect(stat(directory)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('names the compactor once per process, however many compactions it makes', () => {
    let activity = '';
    const sink = (collect: (text: string) => void) =>
      new Writable({ write: (chunk: Buffer, _encoding, done) => (collect(chunk.toString()), done()) });
    const renderer = createTextRenderer({
      text: sink(() => {}),
      activity: sink((text) => (activity += text)),
      style: createStyle(false),
    });
    const started = {
      type: 'context.compaction.started' as const,
      step: 1,
      trigger: 'threshold' as const,
      strategy: 'model-structured' as const,
      mode: 'compact' as const,
      tokensBefore: 30_000,
      sourceRange: { start: 0, end: 20 },
      compactor: { provider: 'test', modelId: 'compactor', estimatedInputTokens: 20_000, maxOutputTokens: 2400 },
    };
    const envelope = (sequence: number) => ({
      schemaVersion: 1,
      runId: 'run_1',
      sessionId: 'ses_1',
      sequence,
      timestamp: new Date(0).toISOString(),
      event: started,
    });
    renderer.onEvent(envelope(0) as never);
    renderer.finishRun();
    renderer.onEvent(envelope(1) as never);
    expect(
      activity
        .split('\n')
        .filter((line) =>
          line.includes(
            'Compaction sends the summarized conversation to test:compactor: ~20,000 input tokens and at most 2,400 output tokens',
          ),
        ),
    ).toHaveLength(1);
  });
});
