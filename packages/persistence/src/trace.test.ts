import { runAgent, type EventEnvelope, type Tool } from '@forge/core';
import { eventEnvelopeSchema } from '@forge/core/internals';
import { ScriptedModel } from '@forge/core/testing';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CorruptFileError } from './errors.js';
import { useTemporaryHome } from './temporary-home.test-helpers.js';
import { readTrace, type TraceEntry } from './trace-reader.js';
import { createTraceWriter } from './trace-writer.js';

const temporaryHome = useTemporaryHome();
const fakeKey = `sk-${'Tr4ce'.repeat(8)}`;

const echoTool: Tool = {
  name: 'run_command',
  description: 'Runs a command.',
  inputSchema: { type: 'object', properties: { command: { type: 'string' } } },
  risk: 'execute',
  describe: (input) => `run ${JSON.stringify(input)}`,
  execute: async () => ({ output: { type: 'text', value: 'ok' } }),
};

async function collect(entries: AsyncIterable<TraceEntry>): Promise<TraceEntry[]> {
  const collected: TraceEntry[] = [];
  for await (const entry of entries) collected.push(entry);
  return collected;
}

describe('run traces', () => {
  it('record a run as envelopes in order, without text deltas or secrets', async () => {
    const home = await temporaryHome();
    const trace = await createTraceWriter(home, 'run_trace_1');
    const model = new ScriptedModel([
      {
        text: 'Let me check.',
        textChunks: 3,
        toolCalls: [{ toolName: 'run_command', input: { command: `curl -H "Authorization: ${fakeKey}"` } }],
      },
      { text: 'All done, the secret answer is 42.', textChunks: 4, usage: { inputTokens: 50, outputTokens: 9 } },
    ]);
    const seen: EventEnvelope[] = [];
    const result = await runAgent({
      model,
      request: 'check it',
      instructions: { text: 'be careful', sources: [], hash: 'f'.repeat(64) },
      tools: [echoTool],
      approvals: { check: async () => ({ kind: 'allow' }) },
      runId: 'run_trace_1',
      session: { id: 'session_t' },
      onEvent: (envelope) => {
        seen.push(envelope);
        trace.listener(envelope);
      },
    });
    await trace.close();
    expect(result.status).toBe('completed');

    const raw = await readFile(trace.file, 'utf8');
    expect(raw).not.toContain(fakeKey);
    expect(raw).not.toContain('All done');
    expect(raw).toContain('[REDACTED:openai-key]');

    // Every line is a core event exactly as its schema in @forge/core/events defines it.
    for (const line of raw.trim().split('\n')) {
      const parsed = eventEnvelopeSchema.safeParse(JSON.parse(line));
      expect(parsed.error?.issues ?? [], line).toEqual([]);
    }
    expect(eventEnvelopeSchema.safeParse({ ...seen[0], event: { type: 'model.step.started', step: -1 } }).success).toBe(
      false,
    );

    const entries = await collect(readTrace(home, 'run_trace_1'));
    const expected = seen.filter((envelope) => envelope.event.type !== 'model.text.delta');
    expect(entries.map((entry) => (entry.kind === 'event' ? entry.envelope.event.type : entry.kind))).toEqual(
      expected.map((envelope) => envelope.event.type),
    );
    expect(entries.every((entry) => entry.kind === 'event' && entry.envelope.sessionId === 'session_t')).toBe(true);
    const sequences = entries.map((entry) => (entry.kind === 'event' ? entry.envelope.sequence : -1));
    expect(sequences).toEqual(expected.map((envelope) => envelope.sequence));
  });

  it('report a torn last line and refuse damage before it', async () => {
    const home = await temporaryHome();
    const trace = await createTraceWriter(home, 'run_torn');
    const envelope = (sequence: number): EventEnvelope => ({
      schemaVersion: 1,
      runId: 'run_torn',
      sequence,
      timestamp: '2025-01-01T00:00:00.000Z',
      event: { type: 'model.step.started', step: sequence },
    });
    trace.listener(envelope(0));
    trace.listener(envelope(1));
    await trace.close();
    await appendFile(trace.file, '{"schemaVersion":1,"runId":"run_to');
    const entries = await collect(readTrace(home, 'run_torn'));
    expect(entries.map((entry) => entry.kind)).toEqual(['event', 'event', 'torn']);
    expect(entries[2]).toMatchObject({ kind: 'torn', line: 3 });

    const lines = (await readFile(trace.file, 'utf8')).split('\n');
    await writeFile(trace.file, [lines[0], '{broken', lines[1], ''].join('\n'));
    const error = await collect(readTrace(home, 'run_torn')).catch((caught: unknown) => caught);
    expect(CorruptFileError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ line: 2 });

    // Regression (issue 17): a damaged last line that ends with a newline, or a blank line, was
    // passed over as torn; a crash cannot leave either, so each is damage the docs call an error.
    await writeFile(trace.file, [lines[0], lines[1], '{"schemaVersion":1,"runId":"run_torn","sequ', ''].join('\n'));
    await expect(collect(readTrace(home, 'run_torn'))).rejects.toMatchObject({ code: 'corrupt_file', line: 3 });
    await writeFile(trace.file, [lines[0], '', lines[1], ''].join('\n'));
    await expect(collect(readTrace(home, 'run_torn'))).rejects.toMatchObject({ code: 'corrupt_file', line: 2 });
  });

  it('never reuses a run id and ignores events after close', async () => {
    const home = await temporaryHome();
    const trace = await createTraceWriter(home, 'run_once');
    await trace.close();
    trace.listener({
      schemaVersion: 1,
      runId: 'run_once',
      sequence: 0,
      timestamp: 'x',
      event: { type: 'model.step.started', step: 1 },
    });
    expect(await readFile(trace.file, 'utf8')).toBe('');
    await expect(createTraceWriter(home, 'run_once')).rejects.toThrow(
      /A trace for run run_once already exists .*every run needs a new run id/,
    );
  });
});
