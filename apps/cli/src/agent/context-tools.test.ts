import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../test-support/cli-harness.js';
import { buildPrivateBinary, spawnForge } from '../test-support/private-build.js';

/*
 * The context tools from the shipped binary: `forge run --context-mode compact` against the real
 * OpenAI adapter (AI SDK, Responses API) over HTTP to the loopback server. A new session is small,
 * so it is sent no context tools; once the session is past `compactTargetRatio` of the input it
 * may use, the model notes a fact with `checkpoint_note` (after one note the validator refuses),
 * `forge compact` makes a checkpoint, and `forge checkpoint show` and `forge inspect` show what a
 * user needs to see.
 */

let bundle: { readonly bin: string; remove(): void };
let provider: LoopbackProvider;
let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeAll(async () => {
  bundle = buildPrivateBinary('context-tools-test');
  provider = await startLoopbackProvider();
  workspace = await temporaryDirectory('forge-context-tools-');
  forgeHome = await temporaryDirectory('forge-context-tools-home-');
  // Long enough that a checkpoint of the turn that read it is smaller than the turn itself.
  const changes = Array.from(
    { length: 120 },
    (_, index) =>
      `- change ${index + 1}: tightened the retry policy of worker pool ${index % 7} and updated its dashboards`,
  );
  await writeFile(
    path.join(workspace.path, 'RELEASE.md'),
    `# Release\n\nThe release train leaves on Friday at 14:00 UTC.\n\n## Changes\n\n${changes.join('\n')}\n`,
  );
}, 120_000);

afterAll(async () => {
  await provider?.close();
  await workspace?.remove();
  await forgeHome?.remove();
  bundle?.remove();
});

const env = (extra: Record<string, string> = {}) => ({
  FORGE_HOME: forgeHome.path,
  HOME: forgeHome.path,
  OPENAI_API_KEY: 'sk-test-context-tools',
  OPENAI_BASE_URL: provider.baseURL,
  // Small enough that the first turn is older than the recent tail once a second turn has run.
  FORGE_CONTEXT_RECENT_TAIL_TOKENS: '200',
  ...extra,
});

const forge = (args: readonly string[], extra?: Record<string, string>) =>
  spawnForge(bundle.bin, args, { cwd: workspace.path, env: { PATH: process.env.PATH ?? '', ...env(extra) } });

// gpt-5.1 leaves ~390k tokens of input: the context tools start past ~2k, which a session that read RELEASE.md is.
const SMALL_TARGET = { FORGE_CONTEXT_COMPACT_TARGET_RATIO: '0.005' };
// Past it from the first request on.
const TINY_TARGET = { FORGE_CONTEXT_COMPACT_TARGET_RATIO: '0.0001' };
const PLAIN_TOOLS = ['edit_file', 'list_files', 'read_file', 'run_command', 'search'];

interface ResponsesBody {
  readonly tools?: readonly { readonly name?: string }[];
  readonly input?: readonly { readonly type?: string; readonly call_id?: string; readonly output?: unknown }[];
}

function toolNames(body: unknown): string[] {
  return ((body as ResponsesBody).tools ?? []).map((tool) => tool.name ?? '');
}

function callOutput(body: unknown, callId: string): string {
  const item = ((body as ResponsesBody).input ?? []).find(
    (entry) => entry.type === 'function_call_output' && entry.call_id === callId,
  );
  return typeof item?.output === 'string' ? item.output : JSON.stringify(item?.output ?? null);
}

describe('checkpoint_note and request_compaction in the forge binary', () => {
  it('offers both once the session is big enough; a refused note reaches the model as a tool error; an accepted one is in the checkpoint after forge compact', async () => {
    const before = provider.requests.length;
    provider.enqueue(
      turn({ toolCalls: [{ name: 'read_file', arguments: { path: 'RELEASE.md' }, callId: 'call_read' }] }),
      turn({ text: 'I have read it.' }),
    );
    const reading = await forge([
      'run',
      '--context-mode',
      'compact',
      '--model',
      'openai:gpt-5.1',
      'Read RELEASE.md, please.',
    ]);
    expect(reading.stderr).not.toContain('forge: error');
    expect(reading.code).toBe(0);
    // A new session is far from compaction: no context tools, whatever mode compact could offer later.
    const small = provider.requests.slice(before);
    expect(small).toHaveLength(2);
    for (const request of small) {
      expect(toolNames(request.body)).toEqual(PLAIN_TOOLS);
      expect(JSON.stringify(request.body)).not.toContain('checkpoint_note');
    }

    const asked = provider.requests.length;
    provider.enqueue(
      turn({
        toolCalls: [
          {
            name: 'checkpoint_note',
            arguments: {
              kind: 'constraint',
              text: 'Never ship on a Monday.',
              evidence: { source: 'user', quote: 'Never ship on a Monday.' },
            },
            callId: 'call_bad_note',
          },
        ],
      }),
      turn({
        toolCalls: [
          {
            name: 'checkpoint_note',
            arguments: {
              kind: 'fact',
              key: 'release.day',
              value: 'Friday 14:00 UTC',
              dependsOn: ['file:RELEASE.md'],
              evidence: { source: 'tool-call', toolCallId: 'call_read' },
            },
            callId: 'call_note',
          },
        ],
      }),
      turn({ text: 'The release train leaves on Friday at 14:00 UTC.' }),
    );
    const first = await forge(
      ['run', '--last', '--context-mode', 'compact', '--model', 'openai:gpt-5.1', 'When does the release train leave?'],
      SMALL_TARGET,
    );
    expect(first.stderr).not.toContain('forge: error');
    expect(first.stderr).toContain('failed: checkpoint_note rejected: no user message contains the quoted words');
    expect(first.code).toBe(0);
    const sent = provider.requests.slice(asked);
    expect(sent).toHaveLength(3);
    // Sorted by name: the prefix stays byte-stable whatever order the tools were registered in.
    expect(toolNames(sent[0]?.body)).toEqual([
      'checkpoint_note',
      'edit_file',
      'list_files',
      'read_file',
      'request_compaction',
      'run_command',
      'search',
    ]);
    expect(JSON.stringify(sent[0]?.body)).toContain('checkpoint_note: record what must survive');
    // The user never said it, so the validator refused it, and the model was told why.
    expect(callOutput(sent[1]?.body, 'call_bad_note')).toMatch(/quote|user message/i);
    expect(callOutput(sent[2]?.body, 'call_note')).toContain('Recorded fact');

    const inspected = await forge(['inspect', '--last']);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout).toContain('checkpoint_note');
    expect(inspected.stdout).toContain('request_compaction');

    // Once offered, a session keeps them, even with the default threshold: switching back would rewrite the cached prefix.
    const thanked = provider.requests.length;
    provider.enqueue(turn({ text: 'Noted.' }));
    const second = await forge([
      'run',
      '--last',
      '--context-mode',
      'compact',
      '--model',
      'openai:gpt-5.1',
      'Thanks, that is all for now.',
    ]);
    expect(second.code).toBe(0);
    expect(toolNames(provider.requests[thanked]?.body)).toContain('checkpoint_note');

    const compacted = await forge(['compact', '--last', '--model', 'openai:gpt-5.1']);
    expect(compacted.stderr).not.toContain('error');
    expect(compacted.code).toBe(0);
    const shown = await forge(['checkpoint', 'show', '--last']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/release\.day.*Friday 14:00 UTC/);
    expect(shown.stdout).not.toContain('Never ship on a Monday');
  }, 120_000);

  it('sends a small session in compact mode exactly the tools and prompt of warn', async () => {
    const before = provider.requests.length;
    provider.enqueue(turn({ text: 'Hello.' }), turn({ text: 'Hello again.' }));
    const compact = await forge(['run', '--context-mode', 'compact', '--model', 'openai:gpt-5.1', 'Say hello.']);
    expect(compact.code).toBe(0);
    const warn = await forge(['run', '--context-mode', 'warn', '--model', 'openai:gpt-5.1', 'Say hello.']);
    expect(warn.code).toBe(0);
    const [compactBody, warnBody] = provider.requests.slice(before).map((request) => request.body as ResponsesBody);
    expect(toolNames(compactBody)).toEqual(PLAIN_TOOLS);
    expect(compactBody?.tools).toEqual(warnBody?.tools);
    // The system prompt and AGENTS.md lead the input: the same bytes, so the same cached prefix.
    const system = (body: ResponsesBody | undefined) => JSON.stringify(body?.input?.[0]);
    expect(system(compactBody)).toContain('You are Forge');
    expect(system(compactBody)).toBe(system(warnBody));
  }, 60_000);

  it('offers neither when the configuration turns them off, nor in warn mode, however big the session is', async () => {
    const before = provider.requests.length;
    provider.enqueue(turn({ text: 'Hello.' }), turn({ text: 'Hello again.' }));
    const off = await forge(['run', '--context-mode', 'compact', '--model', 'openai:gpt-5.1', 'Say hello.'], {
      ...TINY_TARGET,
      FORGE_CONTEXT_CHECKPOINT_NOTE: 'false',
      FORGE_CONTEXT_REQUEST_COMPACTION: 'false',
    });
    expect(off.code).toBe(0);
    const warn = await forge(
      ['run', '--context-mode', 'warn', '--model', 'openai:gpt-5.1', 'Say hello again.'],
      TINY_TARGET,
    );
    expect(warn.code).toBe(0);
    for (const request of provider.requests.slice(before)) {
      expect(toolNames(request.body)).toEqual(['edit_file', 'list_files', 'read_file', 'run_command', 'search']);
      expect(JSON.stringify(request.body)).not.toContain('checkpoint_note');
    }
  }, 60_000);
});
