import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { importCodexRollout } from '@forge/codex';
import { findUnpairedToolCalls, messageSchema, type Message } from '@forge/core';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { byteMutations, fuzz, jsonMutations, MAX_RSS_GROWTH_MB, onlyTypedErrors } from '../support/fuzz-harness.js';
import { packageFile } from '../support/package-files.js';
import { reportCounts, runSize, suiteTimeoutMs } from '../support/run-size.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/*
 * Issue 10, point 2: the Codex rollout importer on files of random lines — lines of the frozen
 * rollouts, lines of the current format, edits of both, random JSON and random bytes — imported
 * against an empty workspace. Nothing a line holds may make it throw; what it produces is a valid
 * transcript without unpaired tool calls, and importing the same file twice gives the same view.
 */

const RUNS = runSize(300, 100_000);
const temporaryDirectory = useTemporaryDirectories();
let seedLines: unknown[] = [];

/** Lines of the current Codex format, one of each kind the importer reads. */
const CURRENT_LINES: unknown[] = [
  {
    timestamp: '2026-01-01T00:00:00Z',
    type: 'session_meta',
    payload: { id: 'thread-1', cwd: '/work/project', cli_version: '0.169.0', originator: 'codex_exec' },
  },
  {
    timestamp: '2026-01-01T00:00:01Z',
    type: 'turn_context',
    payload: { cwd: '/work/project', model: 'gpt-5.1-codex' },
  },
  {
    type: 'response_item',
    payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the parser' }] },
  },
  {
    type: 'response_item',
    payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Look first.' }], content: null },
  },
  {
    type: 'response_item',
    payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"pnpm test"}', call_id: 'call_1' },
  },
  {
    type: 'response_item',
    payload: {
      type: 'function_call_output',
      call_id: 'call_1',
      output: 'Process exited with code 1\nFAIL parser.test.ts',
    },
  },
  { type: 'event_msg', payload: { type: 'exec_command_end', call_id: 'call_1', exit_code: 1 } },
  {
    type: 'response_item',
    payload: {
      type: 'custom_tool_call',
      name: 'apply_patch',
      input: '*** Begin Patch\n*** Update File: src/parser.ts\n@@\n-a\n+b\n*** End Patch\n',
      call_id: 'call_2',
    },
  },
  { type: 'response_item', payload: { type: 'custom_tool_call_output', call_id: 'call_2', output: 'Success.' } },
  { type: 'event_msg', payload: { type: 'patch_apply_end', call_id: 'call_2', success: true } },
  { type: 'response_item', payload: { type: 'compaction', encrypted_content: 'gAAAA-opaque' } },
  { type: 'compacted', payload: { message: 'Summary of earlier work.', replacement_history: [] } },
  {
    type: 'event_msg',
    payload: {
      type: 'token_count',
      info: { total_token_usage: { input_tokens: 10, output_tokens: 5 }, model_context_window: 272000 },
    },
  },
  {
    type: 'event_msg',
    payload: { type: 'item_completed', item: { type: 'commandExecution', id: 'call_1', exit_code: 1 } },
  },
  { type: 'event_msg', payload: { type: 'turn_aborted', reason: 'interrupted' } },
  {
    type: 'response_item',
    payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }] },
  },
];

beforeAll(async () => {
  const fixtures = packageFile('@forge/codex', 'src', 'rollout', 'fixtures');
  const texts = await Promise.all(
    ['legacy-0.46.jsonl', 'legacy-bare.jsonl'].map((name) => readFile(join(fixtures, name), 'utf8')),
  );
  const parsed = texts.flatMap((text) => text.split('\n').flatMap((line) => parseLine(line)));
  seedLines = [...CURRENT_LINES, ...parsed];
});

/** A fixture line as JSON; the fixtures also hold a deliberately torn line, which is left out. */
function parseLine(line: string): unknown[] {
  try {
    return [JSON.parse(line) as unknown];
  } catch {
    return [];
  }
}

function rolloutLines(): fc.Arbitrary<string[]> {
  const line = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...seedLines).map((value) => JSON.stringify(value)) },
    {
      weight: 4,
      arbitrary: fc
        .constantFrom(...seedLines)
        .chain((value) => jsonMutations(value))
        .map((value) => JSON.stringify(value) ?? ''),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...seedLines)
        .chain((value) => byteMutations(Buffer.from(JSON.stringify(value))))
        .map((bytes) => Buffer.from(bytes).toString('utf8')),
    },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  );
  return fc.array(line, { maxLength: 40 });
}

describe('fuzzing the Codex rollout importer', () => {
  it(
    'imports any lines without throwing, into a valid paired transcript, byte-stably',
    async () => {
      const directory = await temporaryDirectory('fuzz-codex');
      const workspace = await temporaryDirectory('fuzz-codex-workspace');
      const file = join(directory, 'rollout-fuzz.jsonl');
      let messages = 0;
      const stats = await fuzz(
        fc.tuple(rolloutLines(), fc.boolean()),
        async ([lines, finalNewline]) => {
          await writeFile(file, `${lines.join('\n')}${finalNewline && lines.length > 0 ? '\n' : ''}`);
          let imported;
          try {
            imported = await importCodexRollout(file, { workspaceRoot: workspace });
          } catch (error) {
            onlyTypedErrors(error);
            throw new Error(
              `the importer threw on lines it must skip: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
          messages += imported.messages.length;
          for (const message of imported.messages) expect(messageSchema.safeParse(message).success).toBe(true);
          expect(findUnpairedToolCalls(imported.messages as Message[])).toEqual([]);
          const again = await importCodexRollout(file, { workspaceRoot: workspace });
          expect(again.view).toBe(imported.view);
        },
        { target: 'codex-rollout', numRuns: RUNS, caseTimeoutMs: 5_000 },
      );
      reportCounts('fuzz codex-rollout', {
        cases: stats.cases,
        messages,
        slowestCaseMs: stats.slowestCaseMs,
        rssGrowthMb: stats.rssGrowthMb,
      });
      expect(messages).toBeGreaterThan(0);
      expect(stats.rssGrowthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
    },
    suiteTimeoutMs(40_000),
  );
});
