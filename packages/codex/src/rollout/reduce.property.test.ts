import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findUnpairedToolCalls, messageSchema, type Message } from '@forge/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCodexRollout, serializeImportState } from './import-rollout.js';
import { RolloutReducer } from './reduce.js';
import { renderImportView } from './view.js';

/*
 * Whatever the lines, their order, duplicates, truncation or unknown types, the reducer never
 * throws, every tool call in the transcript stays paired, every message is a valid core message,
 * and the same lines always give the same bytes.
 */

const fixtureLines = ['legacy-0.46.jsonl', 'legacy-bare.jsonl'].flatMap((name) =>
  readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8').split('\n'),
);

const currentLines = [
  { type: 'session_meta', payload: { id: 'thread-1', cwd: '/nonexistent/ws', cli_version: '0.169.0' } },
  {
    type: 'response_item',
    payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"make"}', call_id: 'c1' },
  },
  {
    type: 'event_msg',
    payload: { type: 'item_completed', item: { type: 'CommandExecution', id: 'c1', exit_code: 2, status: 'failed' } },
  },
  {
    type: 'response_item',
    payload: { type: 'function_call_output', call_id: 'c1', output: 'Process exited with code 2\nOutput:\nboom' },
  },
  {
    type: 'response_item',
    payload: {
      type: 'custom_tool_call',
      name: 'apply_patch',
      call_id: 'c2',
      input: '*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n*** End Patch',
    },
  },
  {
    type: 'response_item',
    payload: { type: 'custom_tool_call_output', call_id: 'c2', output: 'Exit code: 0\nOutput:\nSuccess.' },
  },
  { type: 'response_item', payload: { type: 'compaction', encrypted_content: 'opaque' } },
  {
    type: 'compacted',
    payload: {
      message: '',
      replacement_history: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'kept' }] },
        { type: 'compaction', encrypted_content: 'opaque' },
      ],
    },
  },
  { type: 'compacted', payload: { message: 'summary', replacement_history: [] } },
  { type: 'world_state', payload: { full: true } },
  { type: 'event_msg', payload: { type: 'task_complete' } },
  {
    type: 'response_item',
    payload: { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'rules' }] },
  },
].map((line) => JSON.stringify(line));

const lineArbitrary = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...fixtureLines, ...currentLines) },
  { weight: 1, arbitrary: fc.json() },
  { weight: 1, arbitrary: fc.string() },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.string(), payload: fc.anything() }).map((value) => JSON.stringify(value)),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        type: fc.constantFrom('response_item', 'event_msg', 'compacted', 'session_meta', 'turn_context'),
        payload: fc.oneof(
          fc.anything(),
          fc.record(
            {
              type: fc.constantFrom('message', 'function_call', 'function_call_output', 'token_count', 'user_message'),
            },
            { requiredKeys: [] },
          ),
        ),
      })
      .map((value) => JSON.stringify(value)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(...fixtureLines, ...currentLines)
      .chain((line) => fc.nat(line.length).map((cut) => line.slice(0, cut))),
  },
);

function reduce(lines: readonly string[]): { messages: Message[]; json: string; view: string } {
  const messages: Message[] = [];
  const reducer = new RolloutReducer((message) => messages.push(message), { rethrow: true });
  lines.forEach((line, index) => reducer.applyLine(line, index + 1, index === lines.length - 1));
  const state = reducer.finish({ bytes: 0, sha256: '0'.repeat(64) });
  return { messages, json: serializeImportState(state), view: renderImportView(state) };
}

describe('the rollout reducer under arbitrary input', () => {
  it('never throws, keeps tool calls paired and messages valid, and is deterministic', () => {
    fc.assert(
      fc.property(fc.array(lineArbitrary, { maxLength: 60 }), (lines) => {
        const first = reduce(lines);
        for (const message of first.messages) expect(messageSchema.safeParse(message).success).toBe(true);
        expect(findUnpairedToolCalls(first.messages)).toEqual([]);
        const second = reduce(lines);
        expect(second.json).toBe(first.json);
        expect(second.view).toBe(first.view);
        expect(JSON.parse(first.json).transcript.messages).toBe(first.messages.length);
      }),
      { numRuns: 300 },
    );
  });

  it('survives any shuffle of a real file', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(fixtureLines, { minLength: 0 }), (lines) => {
        const { messages } = reduce(lines);
        expect(findUnpairedToolCalls(messages)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('importing a rollout file cut at any byte', () => {
  let directory: string;
  const original = readFileSync(join(import.meta.dirname, 'fixtures', 'legacy-0.46.jsonl'));
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'forge-codex-cut-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('imports the intact prefix and flags a cut-off last line as torn, never as a failure', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(original.length), async (cut) => {
        const path = join(directory, 'cut.jsonl');
        const bytes = original.subarray(0, cut);
        await writeFile(path, bytes);
        const { state, messages } = await importCodexRollout(path);
        expect(findUnpairedToolCalls(messages)).toEqual([]);
        expect(state.skipped.malformedLines).toBe(0);
        const endsMidLine = cut > 0 && bytes[cut - 1] !== 0x0a;
        if (!endsMidLine) expect(state.skipped.tornTail).toBe(false);
      }),
      { numRuns: 60 },
    );
  });
});
