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
const TOOLS: ToolDefinition[] = ['read_file', 'checkpoint_note', 'request_compaction'].map((name) => ({ name, description: `${name} tool`, inputSchema: { type: 'object' } }));

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

/** Plays one turn against the model alone, answering its tool calls as a host would, and returns the tools it called. */
async function playTurn(model: PolicyModel, message: string, padding = ''): Promise<string[]> {
  const continuation: Message[] = [];
  const called: string[] = [];
  for (let step = 0; step < 10; step += 1) {
    const request: ModelRequest = { instructions: `You are a coding agent.${padding}`, history: [], currentRequest: { role: 'user', content: message }, continuation: [...continuation], tools: TOOLS };
    let call: { toolCallId: string; toolName: string } | undefined;
    for await (const part of model.doStream(request, {}) as AsyncIterable<ModelStreamPart>) if (part.type === 'tool-call') call = part.part;
    if (call === undefined) return called;
    called.push(call.toolName);
    const output = call.toolName === 'read_file' ? 'export const TIMEOUT_MS = 5000; // fact:auth.timeout=5000\n' : 'Recorded.';
    continuation.push(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'text', value: output } }] },
    );
  }
  return called;
}

describe('policy agents', () => {
  const turn = fixture().turns[0]?.message ?? '';

  it('cooperative notes the constraint and the fact it read; no-notes never calls the context tools', async () => {
    expect(await playTurn(new PolicyModel({ fixture: fixture() }), turn)).toEqual(['checkpoint_note', 'read_file', 'checkpoint_note']);
    expect(await playTurn(new PolicyModel({ fixture: fixture(), agent: 'no-notes' }), turn)).toEqual(['read_file']);
  });

  it('asks for a checkpoint once the request fills three quarters of the window, unless it is no-notes', async () => {
    const padding = ' filler'.repeat(1800);
    expect(await playTurn(new PolicyModel({ fixture: fixture() }), turn, padding)).toContain('request_compaction');
    expect(await playTurn(new PolicyModel({ fixture: fixture(), agent: 'no-notes' }), turn, padding)).not.toContain('request_compaction');
    expect(await playTurn(new PolicyModel({ fixture: fixture() }), turn)).not.toContain('request_compaction');
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
    expect(() => parseAgentNames('lazy')).toThrow(/Unknown agent "lazy"; choose from cooperative, no-notes, sloppy, all/);
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
    for await (const part of model.doStream(request, {}) as AsyncIterable<ModelStreamPart>) if (part.type === 'finish') reported = part.usage.inputTokens ?? 0;
    expect(reported).toBeLessThan(forge.tokens);
    expect(reported).toBeGreaterThan(forge.tokens * 0.85);
  });

  it('playing another model, Forge estimates conservatively and over-counts more', async () => {
    const model = new PolicyModel({ fixture: fixture() });
    expect(model.capabilities.estimation).toBe('conservative-fallback');
    const forge = await model.estimateRequestTokens(request);
    let reported = 0;
    for await (const part of model.doStream(request, {}) as AsyncIterable<ModelStreamPart>) if (part.type === 'finish') reported = part.usage.inputTokens ?? 0;
    expect(forge.tokens).toBeGreaterThan(reported);
  });
});
