import { describe, expect, it } from 'vitest';
import { resolveContextPolicy, type ModelRequest, type TokenEstimate } from '@forge/core';
import { measureContext } from '@forge/core/budget';
import { createEstimatorAccuracyTracker, reconcileUsage } from '@forge/core/internals';
import { OPENAI_PROMPT_CACHE } from '@forge/core/pricing';
import { ScriptedModel } from '@forge/core/testing';
import { renderContextReport } from './render-context-report.js';

const categories = {
  instructions: 3200,
  checkpoint: 0,
  history: 41_000,
  request: 120,
  continuation: 0,
  toolSchemas: 2300,
  overhead: 180,
};
const estimate = (confidence: TokenEstimate['confidence']): TokenEstimate => ({
  tokens: Object.values(categories).reduce((sum, value) => sum + value, 0),
  method: confidence === 'exact' ? 'provider-tokenizer' : 'conservative-fallback',
  confidence,
  categories,
});

const request: ModelRequest = {
  instructions: 'x',
  history: [
    { role: 'user', content: 'a' },
    { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
  ],
  currentRequest: { role: 'user', content: 'c' },
  continuation: [],
  tools: [{ name: 'read_file', description: 'd', inputSchema: {} }],
};

describe('renderContextReport', () => {
  it('shows model, window and source, every category, reserve, free space and retained turns', async () => {
    const model = new ScriptedModel([], {
      modelId: 'budget-demo',
      capabilities: { contextWindowTokens: 128_000, maxOutputTokens: 16_000 },
      estimate: () => estimate('exact'),
    });
    const report = await measureContext({
      model,
      request,
      policy: resolveContextPolicy({ mode: 'compact' }),
      sessionMessages: 40,
      instructionsHash: 'f'.repeat(64),
      view: { checkpointId: 'cp_0123456789abcdef', coveredMessages: 38, verbatimMessages: 2, omitted: 0 },
      checkpoint: {
        id: 'cp_0123456789abcdef',
        strategy: 'forge-state',
        summarizedThrough: 38,
        sourceHash: 'a'.repeat(64),
      },
    });
    expect(renderContextReport(report, { color: false })).toMatchInlineSnapshot(`
      "Context for scripted:budget-demo
        Window       128,000 tokens — from the capability table
        Counted by   the provider's tokenizer, exact text counts; framing is modelled
        Mode         compact — fits

        [IHHHHHHHHHHHHHHS........................] 39% of available input used

        Category             Tokens  of available
        I Instructions        3,200   2.7%
        C Checkpoint              0     0%
        H History            41,000    34%  2 messages verbatim
        R Current request       120   0.1%
        T This run so far         0     0%
        S Tool schemas        2,300   1.9%  1 tool
        F Framing               180   0.2%
        Total                46,800    39%

        Reserve          8,192 = max(output 4,096, buffer 8,192)
        Available input  119,808
        Free             73,008
        Warn above       95,846
        Compact above    101,836: compacts down to 59,904
        Room for history 114,008 (available − mandatory 5,800 − checkpoint)
        Session          40 messages: [0, 38) in the checkpoint, [38, 40) verbatim, none left out
        Checkpoint       cp_0123456789abcdef, strategy forge-state, summarizes messages [0, 38), source aaaaaaaaaaaa
        Prices           none: a scripted model is not billed by any provider
      "
    `);
  });

  it('marks conservative counts as estimated, names a fallback window and shows the estimate error', async () => {
    const model = new ScriptedModel([], {
      capabilities: { contextWindowTokens: 32_768, source: 'fallback' },
      estimate: () => estimate('estimated'),
    });
    const tracker = createEstimatorAccuracyTracker();
    tracker.record(
      'scripted',
      'scripted-model',
      reconcileUsage(
        estimate('estimated'),
        {
          inputTokens: 40_000,
          cacheReadTokens: undefined,
          cacheWriteTokens: undefined,
          outputTokens: undefined,
          reasoningTokens: undefined,
        },
        8192,
      ),
    );
    const report = await measureContext({
      model,
      request,
      policy: resolveContextPolicy(),
      accuracy: tracker.get('scripted', 'scripted-model'),
      checkpoint: { id: 'checkpoint_1', strategy: 'forge-state', summarizedThrough: 12 },
    });
    const text = renderContextReport(report, { color: false });
    expect(text).toContain('from the fallback: unknown model, conservative default');
    expect(text).toContain('a conservative estimate (errs high), estimated');
    expect(text).toMatch(/Total \(estimated\)\s+46,800/);
    expect(text).toContain(
      'Mode         warn — does not fit: mode warn sends the whole conversation, so the next step would stop before sending',
    );
    const compacting = renderContextReport(
      await measureContext({ model, request, policy: resolveContextPolicy({ mode: 'compact' }) }),
      { color: false },
    );
    expect(compacting).toContain('Mode         compact — does not fit: the next step compacts older turns first');
    // over budget: the bar is scaled to the estimate, so it is full and has no free cells
    expect(text).toMatch(/\[[IHSF]{40}\] 190% of available input used/);
    expect(text).toMatch(/Free\s+-22,224 \(over budget\)/);
    expect(text).toContain('Checkpoint       checkpoint_1, strategy forge-state, summarizes messages [0, 12)');
    expect(text).toContain('Estimate error   +17% on average over 1 step');
    expect(text).not.toContain('\u001b[');
    const grouped = await measureContext({
      model,
      request,
      policy: resolveContextPolicy(),
      toolGroups: [{ name: 'built-in', tools: request.tools }],
    });
    expect(grouped.toolGroups).toEqual([{ name: 'built-in', tools: 1, tokens: 2300 }]);
    expect(renderContextReport(grouped, { color: false })).toMatch(/^\s+built-in\s+2,300\s+1 tool$/m);
    expect(renderContextReport(report, { color: true })).toContain('\u001b[');
  });

  it("prices a priced model's next request cold and warm, with the figures' source, and the session so far", async () => {
    const prices = {
      currency: 'USD',
      inputPerMillion: 1.25,
      cachedInputPerMillion: 0.125,
      outputPerMillion: 10,
      source: 'table',
      asOf: '2026-12-01',
      reference: 'https://example.test/pricing',
    } as const;
    const model = new ScriptedModel([], {
      capabilities: { prices, promptCache: OPENAI_PROMPT_CACHE },
      estimate: () => estimate('exact'),
    });
    const sessionCost = {
      cost: { currency: 'USD', freshInput: 0.1, cachedInput: 0.02, cacheWrite: 0, output: 0.3, total: 0.42 },
      cacheHitRatio: 0.68,
    } as const;
    const report = await measureContext({ model, request, policy: resolveContextPolicy(), sessionCost });
    // everything but the current request may be cached: 46,680 tokens, which OpenAI caches as 46,592 (1,024 + whole steps of 128)
    expect(report.nextRequestCost).toMatchObject({
      inputTokens: 46_800,
      cacheableTokens: 46_592,
      reservedOutputTokens: 4096,
    });
    expect(report.nextRequestCost?.coldInput).toBeCloseTo(0.0585, 12);
    expect(report.nextRequestCost?.warmInput).toBeCloseTo((208 * 1.25 + 46_592 * 0.125) / 1e6, 12);
    const text = renderContextReport(report, { color: false });
    expect(text).toContain(
      '  Prices           $1.25 input · $0.125 cached · $10 output per 1M tokens\n                   from the capability table, as of 2026-12-01, https://example.test/pricing\n',
    );
    expect(text).toContain(
      '  Next request     input $0.0585 with a cold cache, $0.00608 if 46,592 are read from the prompt cache\n',
    );
    expect(text).toContain('                   output up to $0.041 (the 4,096 reserved)\n');
    expect(text).toContain('  Session so far   $0.42, 68% of input cached\n');
  });

  it('takes an estimate already made of the request instead of estimating it again', async () => {
    const model = new ScriptedModel([], { estimate: () => estimate('exact') });
    const policy = resolveContextPolicy({ mode: 'compact' });
    const measured = await measureContext({ model, request, policy });
    expect(model.estimateRequests).toEqual([request]);
    const given = await measureContext({ model, request, policy, estimate: measured.budget.estimate });
    expect(model.estimateRequests).toEqual([request]);
    expect(given).toEqual(measured);
  });

  it('is the same data as JSON', async () => {
    const model = new ScriptedModel([], { estimate: () => estimate('exact') });
    const report = await measureContext({ model, request, policy: resolveContextPolicy({ mode: 'off' }) });
    const json = JSON.parse(JSON.stringify(report)) as typeof report;
    expect(json.budget).toMatchObject({
      decision: 'off',
      contextWindowTokens: 128_000,
      windowSource: 'table',
      estimate: { tokens: 46_800 },
    });
    expect(json).toMatchObject({ retainedMessages: 2, toolCount: 1, model: { provider: 'scripted' } });
  });
});
