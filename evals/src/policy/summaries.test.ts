import type { CheckpointTranscriptEntry } from '@forge/core/checkpoint';

import { describe, expect, it } from 'vitest';
import { expandFixture } from '../fixture/expand.js';
import { parseFixture } from '../fixture/load.js';
import { PolicyModel } from './policy-model.js';
import { compactorRequest, parseCompactorReply } from '@forge/core/internals';

const PNPM = 'Use pnpm for every install and script, never npm.';
const NPM = 'Use npm for every install, not pnpm.';
const REASON = 'the retry loop never ends, so a longer timeout cannot help';

const fixture = expandFixture(
  parseFixture(
    {
      formatVersion: 1,
      id: 'summaries',
      title: 'summaries',
      model: { contextWindowTokens: 50_000 },
      commands: [{ id: 'raise', argv: ['node', 'raise.js'], results: [{ exitCode: 1, output: `FAIL: ${REASON}` }] }],
      constraints: [
        { id: 'pm', topic: 'package-manager', value: 'pnpm', text: PNPM },
        { id: 'pm-file', topic: 'package-manager', value: 'npm', text: NPM },
      ],
      approaches: [{ id: 'raise', description: 'raising the timeout', command: 'raise', reason: REASON }],
      turns: [{ user: 'go' }],
    },
    'test',
  ),
);

const transcript: CheckpointTranscriptEntry[] = [
  { message: { role: 'user', content: `Fix the login. ${PNPM}` } },
  {
    message: {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'run_command', input: { argv: ['node', 'raise.js'] } },
      ],
    },
  },
  {
    message: {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'run_command',
          output: { type: 'text', value: `FAIL: ${REASON}` },
        },
      ],
    },
  },
  {
    message: {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: { path: 'CONTRIBUTING.md' } }],
    },
  },
  {
    message: {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c2',
          toolName: 'read_file',
          output: { type: 'text', value: `AI agents: ${NPM}` },
        },
      ],
    },
  },
];

describe('policy model as a compactor', () => {
  it('answers the compactor request with a checkpoint the schema accepts, constraints taken from user messages only', async () => {
    const model = new PolicyModel({ fixture });
    let text = '';
    const request = compactorRequest({
      transcript,
      end: transcript.length,
      redact: (value) => value,
      maxOutputTokens: 1000,
    });
    for await (const part of model.doStream(request, {})) if (part.type === 'text-delta') text += part.delta;
    const parsed = parseCompactorReply(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.summary.constraints).toEqual([PNPM]);
    expect(parsed.summary.rejectedApproaches).toEqual([
      { approach: 'raising the timeout', reason: REASON, retryOnlyIf: null },
    ]);
    expect(model.calls.at(-1)?.kind).toBe('summary');
  });
});
