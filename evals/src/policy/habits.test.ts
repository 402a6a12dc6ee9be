import type { Message, ModelRequest, ModelStreamPart, ToolDefinition } from '@forge/core';
import { createO200kEstimator } from '@forge/model-openai';
import { describe, expect, it } from 'vitest';
import { expandFixture } from '../fixture/expand.js';
import { parseFixture } from '../fixture/load.js';
import type { FixtureInput } from '../fixture/schema.js';
import { agentHabits, parseAgentNames } from './habits.js';
import { PolicyModel } from './policy-model.js';

const RULE = 'Use pnpm for every install and script, never npm.';
const ASK = 'What is the timeout? Answer as "fact auth.timeout = <value>".';
const TOOLS: ToolDefinition[] = ['read_file', 'checkpoint_note', 'request_compaction'].map((name) => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object' },
}));

function fixture(overrides: Partial<FixtureInput> = {}) {
  return expandFixture(
    parseFixture(
      {
        formatVersion: 1,
        id: 'habits',
        title: 'habits',
        model: { contextWindowTokens: 4000 },
        files: [{ path: 'src/auth.ts', content: 'export const TIMEOUT_MS = 5000; // fact:auth.timeout=5000\n' }],
        constraints: [{ id: 'pm', topic: 'package-manager', value: 'pnpm', text: RULE }],
        turns: [{ user: ASK, states: ['pm'], steps: [{ op: 'learn', path: 'src/auth.ts', key: 'auth.timeout' }] }],
        ...overrides,
      },
      'habits',
    ),
  );
}

/** Plays one turn against the model alone, answering its tool calls as a host would, and returns the tools it called, in order. */
async function playTurn(model: PolicyModel, message: string, padding = ''): Promise<string[]> {
  const continuation: Message[] = [];
  const called: string[] = [];
  for (let step = 0; step < 10; step += 1) {
    const request: ModelRequest = {
      instructions: `You are a coding agent.${padding}`,
      history: [],
      currentRequest: { role: 'user', content: message },
      continuation: [...continuation],
      tools: TOOLS,
    };
    const calls: { toolCallId: string; toolName: string }[] = [];
    for await (const part of model.doStream(request, {}) as AsyncIterable<ModelStreamPart>)
      if (part.type === 'tool-call') calls.push(part.part);
    if (calls.length === 0) return called;
    called.push(...calls.map((call) => call.toolName));
    const output = (toolName: string) =>
      toolName === 'read_file' ? 'export const TIMEOUT_MS = 5000; // fact:auth.timeout=5000\n' : 'Recorded.';
    continuation.push(
      {
        role: 'assistant',
        content: calls.map((call) => ({
          type: 'tool-call' as const,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: {},
        })),
      },
      {
        role: 'tool',
        content: calls.map((call) => ({
          type: 'tool-result' as const,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          output: { type: 'text' as const, value: output(call.toolName) },
        })),
      },
    );
  }
  return called;
}

describe('policy agents', () => {
  const turn = fixture().turns[0]?.message ?? '';

  it('cooperative notes the constraint and the fact it read; no-notes never calls the context tools', async () => {
    expect(await playTurn(new PolicyModel({ fixture: fixture() }), turn)).toEqual([
      'checkpoint_note',
      'read_file',
      'checkpoint_note',
    ]);
    expect(await playTurn(new PolicyModel({ fixture: fixture(), agent: 'no-notes' }), turn)).toEqual(['read_file']);
  });

  it('asks for a checkpoint once the request fills three quarters of the window, unless it is no-notes', async () => {
    const padding = ' filler'.repeat(1800);
    expect(await playTurn(new PolicyModel({ fixture: fixture() }), turn, padding)).toContain('request_compaction');
    expect(await playTurn(new PolicyModel({ fixture: fixture(), agent: 'no-notes' }), turn, padding)).not.toContain(
      'request_compaction',
    );
    expect(await playTurn(new PolicyModel({ fixture: fixture() }), turn)).not.toContain('request_compaction');
  });

  it('makes its notes in the same step as the next call that does the work, so they cost no request of their own', async () => {
    const model = new PolicyModel({ fixture: fixture() });
    expect(await playTurn(model, turn)).toEqual(['checkpoint_note', 'read_file', 'checkpoint_note']);
    // The constraint rides with the read; the fact it read, due right before the answer, takes the one step of its own.
    expect(model.calls.map((call) => call.kind)).toEqual(['agent', 'agent', 'agent']);
  });

  it('when checkpoint_note first appears, notes the facts earlier turns read and did not note, citing the read; never what it noted already', async () => {
    const second = 'Now say it again: answer as "fact auth.timeout = <value>".';
    const twoTurns = fixture({
      turns: [
        { user: ASK, steps: [{ op: 'learn', path: 'src/auth.ts', key: 'auth.timeout' }] },
        { user: second, steps: [{ op: 'learn', path: 'src/auth.ts', key: 'auth.timeout' }] },
      ],
    });
    const read = { toolCallId: 't0-s0-read', toolName: 'read_file' };
    const history: Message[] = [
      { role: 'user', content: ASK },
      { role: 'assistant', content: [{ type: 'tool-call', ...read, input: { path: 'src/auth.ts' } }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            ...read,
            output: { type: 'text', value: 'export const TIMEOUT_MS = 5000; // fact:auth.timeout=5000\n' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'fact auth.timeout = 5000' }] },
    ];
    const firstStep = async (agent: 'cooperative' | 'no-notes', earlier: readonly Message[]) => {
      const request: ModelRequest = {
        instructions: 'You are a coding agent.',
        history: [...earlier],
        currentRequest: { role: 'user', content: second },
        continuation: [],
        tools: TOOLS,
      };
      const calls: { toolCallId: string; toolName: string; input: unknown }[] = [];
      for await (const part of new PolicyModel({ fixture: twoTurns, agent }).doStream(
        request,
        {},
      ) as AsyncIterable<ModelStreamPart>) {
        if (part.type === 'tool-call')
          calls.push({ toolCallId: part.part.toolCallId, toolName: part.part.toolName, input: part.part.input });
      }
      return calls;
    };
    expect(await firstStep('cooperative', history)).toEqual([
      {
        toolCallId: 't0-s0-note-auth.timeout',
        toolName: 'checkpoint_note',
        input: {
          kind: 'fact',
          key: 'auth.timeout',
          value: 'fact:auth.timeout=5000',
          dependsOn: ['file:src/auth.ts'],
          evidence: { source: 'tool-call', toolCallId: 't0-s0-read' },
        },
      },
      // With that noted, the earlier turn is no longer needed verbatim: it asks for a checkpoint in the same step.
      { toolCallId: 't1-compact', toolName: 'request_compaction', input: { reason: expect.stringContaining('noted') } },
    ]);
    expect(await firstStep('no-notes', history)).toEqual([]);
    const note = { toolCallId: 't0-s0-note-auth.timeout', toolName: 'checkpoint_note' };
    const noted: Message[] = [
      ...history.slice(0, 3),
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', ...note, input: { kind: 'fact', key: 'auth.timeout', value: 'fact:auth.timeout=5000' } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', ...note, output: { type: 'text', value: 'Recorded.' } }] },
      ...history.slice(3),
    ];
    expect(await firstStep('cooperative', noted)).toEqual([]);
  });

  it('sloppy notes about half of the items, the same ones on every run', () => {
    const items = Array.from({ length: 400 }, (_, index) => `fact:key.${index}`);
    const first = agentHabits('sloppy', 'a-fixture');
    const noted = items.filter((item) => first.notes(item));
    expect(noted.length).toBeGreaterThan(160);
    expect(noted.length).toBeLessThan(240);
    expect(items.filter((item) => agentHabits('sloppy', 'a-fixture').notes(item))).toEqual(noted);
    expect(items.filter((item) => agentHabits('sloppy', 'another-fixture').notes(item))).not.toEqual(noted);
  });

  it('parses --agent: one name, a list, or all; refuses unknown names', () => {
    expect(parseAgentNames(undefined)).toEqual(['cooperative']);
    expect(parseAgentNames('sloppy,no-notes,sloppy')).toEqual(['sloppy', 'no-notes']);
    expect(parseAgentNames('all')).toEqual(['cooperative', 'no-notes', 'sloppy']);
    expect(() => parseAgentNames('lazy')).toThrow(
      /Unknown agent "lazy"; choose from cooperative, no-notes, sloppy, all/,
    );
  });
});

describe('the simulated provider', () => {
  const request: ModelRequest = {
    instructions: 'You are a coding agent working in the repository.',
    history: Array.from({ length: 30 }, (_, index): Message => ({
      role: 'user',
      content: `Step ${index}: read the parser and summarise how it handles unicode escapes in strings, then list the tests that cover them.`,
    })),
    currentRequest: { role: 'user', content: ASK },
    continuation: [],
    tools: TOOLS,
  };

  it('playing an OpenAI model, Forge counts with the OpenAI adapter\u2019s exact estimator and the provider reports a little less', async () => {
    const model = new PolicyModel({ fixture: fixture({ model: { contextWindowTokens: 4000, plays: 'openai' } }) });
    expect(model.capabilities.estimation).toBe('provider-tokenizer');
    const forge = await model.estimateRequestTokens(request);
    expect(forge).toEqual(await createO200kEstimator().estimate(request));
    let reported = 0;
    for await (const part of model.doStream(request, {}) as AsyncIterable<ModelStreamPart>)
      if (part.type === 'finish') reported = part.usage.inputTokens ?? 0;
    expect(reported).toBeLessThan(forge.tokens);
    expect(reported).toBeGreaterThan(forge.tokens * 0.85);
  });

  it('playing another model, Forge estimates conservatively and over-counts more', async () => {
    const model = new PolicyModel({ fixture: fixture() });
    expect(model.capabilities.estimation).toBe('conservative-fallback');
    const forge = await model.estimateRequestTokens(request);
    let reported = 0;
    for await (const part of model.doStream(request, {}) as AsyncIterable<ModelStreamPart>)
      if (part.type === 'finish') reported = part.usage.inputTokens ?? 0;
    expect(forge.tokens).toBeGreaterThan(reported);
  });
});
