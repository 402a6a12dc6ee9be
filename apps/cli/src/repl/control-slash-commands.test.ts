import { mergeLayers } from '@forge/config';
import { createApprovalGate } from '@forge/tools';
import { describe, expect, it } from 'vitest';
import type { TurnEngine } from '../engines/turn-engine.js';
import { createStyle } from '../output/style.js';
import type { ReplSession } from './repl-session.js';
import { completeSlashCommand, findSlashCommand, type ReplContext } from './slash-commands.js';
import { ContextUseTracker } from './status-line.js';

/** A REPL context for completion: a native-like engine, a configuration with one compatible server. */
function completionContext(): ReplContext {
  const approvals = createApprovalGate({ profile: 'ask', confirm: async () => ({ kind: 'session' }) });
  const engine: TurnEngine = {
    name: 'native',
    modelLabel: 'openai:gpt-5',
    contextMode: 'warn',
    root: '/workspace',
    approvals,
    runTurn: () => Promise.reject(new Error('completion runs no turn')),
    start: async () => {},
    close: async () => {},
  };
  const { config } = mergeLayers([
    {
      source: 'user',
      values: {
        models: [{ name: 'local', baseURL: 'http://127.0.0.1:1/v1', modelId: 'q', contextWindowTokens: 8192 }],
      },
    },
  ]);
  return {
    engine,
    style: createStyle(false),
    session: {} as ReplSession,
    config,
    contextUse: new ContextUseTracker(),
    width: () => Infinity,
    print: () => {},
  };
}

describe('completion of slash command arguments', () => {
  it('completes modes, models (configured compatible servers included) and granted tools to revoke', async () => {
    const context = completionContext();
    expect(completeSlashCommand('/mode s', context)).toEqual([['/mode shadow'], '/mode s']);
    expect(completeSlashCommand('/mode ', context)[0]).toEqual([
      '/mode off',
      '/mode warn',
      '/mode shadow',
      '/mode compact',
    ]);
    expect(completeSlashCommand('/model comp', context)).toEqual([['/model compatible:local'], '/model comp']);
    expect(completeSlashCommand('/model ', context)[0]).toContain('/model scripted:demo');
    // The ids of forge models list: every capability-table model can be completed.
    expect(completeSlashCommand('/model deepseek:deepseek-c', context)).toEqual([
      ['/model deepseek:deepseek-chat'],
      '/model deepseek:deepseek-c',
    ]);
    expect(completeSlashCommand('/model openai:gpt-5.1-codex-m', context)[0]).toEqual([
      '/model openai:gpt-5.1-codex-mini',
      '/model openai:gpt-5.1-codex-max',
    ]);

    expect(completeSlashCommand('/permissions revoke ', context)[0]).toEqual([]);
    const signal = new AbortController().signal;
    await context.engine.approvals.check(
      { toolCallId: 'c1', toolName: 'edit_file', input: {}, risk: 'write', summary: 'edit' },
      signal,
    );
    expect(completeSlashCommand('/permissions r', context)[0]).toEqual([
      '/permissions revoke',
      '/permissions revoke edit_file',
    ]);
  });

  it('offers nothing for commands without argument completion, or without a context', () => {
    expect(completeSlashCommand('/exit n', completionContext())).toEqual([[], '/exit n']);
    expect(completeSlashCommand('/mode s')).toEqual([[], '/mode s']);
  });
});

describe('/context with an engine that builds its own requests (Codex)', () => {
  it('says it measures native-engine requests only, and repeats what Codex reported and the input estimate of the latest turn', async () => {
    const printed: string[] = [];
    const base = completionContext();
    const context: ReplContext = {
      ...base,
      engine: { ...base.engine, name: 'codex', modelLabel: 'codex:gpt-5.5', contextMode: undefined },
      print: (text) => printed.push(text),
    };
    const found = findSlashCommand('/context');
    if (!('command' in found)) throw new Error('/context is not a slash command');

    await found.command.run(context, '');
    expect(printed.join('')).toBe(
      '/context measures requests of the native engine only; Codex builds its own requests.\n',
    );

    printed.length = 0;
    context.contextUse.observe({
      type: 'codex.context.budgeted',
      estimate: { tokens: 12_345, confidence: 'estimated' },
    });
    await found.command.run(context, '');
    expect(printed.join('')).toContain("The latest turn sent Codex ~12,345 tokens of Forge's own input");

    printed.length = 0;
    context.contextUse.observe({
      type: 'codex.usage.recorded',
      usage: {
        last: { inputTokens: 20_000, cachedInputTokens: 15_000, outputTokens: 480 },
        modelContextWindow: 258_400,
      },
    });
    await found.command.run(context, '');
    expect(printed.join('')).toContain(
      "Reported by Codex for its latest model call: 20,480 tokens of a 258,400-token window (8%), 15,000 of its input from the provider's cache.",
    );
  });
});
