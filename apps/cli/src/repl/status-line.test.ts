import { describe, expect, it } from 'vitest';
import { createStyle } from '../output/style.js';
import { compactTokens, ContextUseTracker, renderStatusLine } from './status-line.js';

const plain = createStyle(false);

describe('renderStatusLine', () => {
  it('marks an estimate with ~ and an exact count without it', () => {
    const tracker = new ContextUseTracker();
    tracker.observe({
      type: 'context.budgeted',
      availableInputTokens: 200_000,
      estimate: { tokens: 12_345, confidence: 'estimated' },
    });
    expect(renderStatusLine({ model: 'openai:gpt-5', mode: 'warn', use: tracker.current, style: plain })).toBe(
      '─ openai:gpt-5 · mode warn · context ~12.3k / 200k (6%)\n',
    );
    tracker.observe({
      type: 'context.budgeted',
      availableInputTokens: 200_000,
      estimate: { tokens: 180_000, confidence: 'exact' },
    });
    expect(renderStatusLine({ model: 'openai:gpt-5', mode: 'compact', use: tracker.current, style: plain })).toBe(
      '─ openai:gpt-5 · mode compact · context 180k / 200k (90%)\n',
    );
  });

  it('shows no mode for an engine without one, and an unknown use until the first request', () => {
    expect(renderStatusLine({ model: 'codex:gpt-5.5', mode: undefined, use: undefined, style: plain })).toBe(
      '─ codex:gpt-5.5 · context –\n',
    );
  });

  it('shows what Codex reported for its latest model call, labelled as such, and leaves the wrapper estimate out of it', () => {
    const tracker = new ContextUseTracker();
    tracker.observe({ type: 'codex.context.budgeted', estimate: { tokens: 900, confidence: 'estimated' } });
    expect(tracker.current).toBeUndefined();
    tracker.observe({
      type: 'codex.usage.recorded',
      usage: {
        last: { inputTokens: 30_000, cachedInputTokens: 28_000, outputTokens: 1_000 },
        modelContextWindow: 258_400,
      },
    });
    expect(renderStatusLine({ model: 'codex:gpt-5.5', mode: undefined, use: tracker.current, style: plain })).toBe(
      '─ codex:gpt-5.5 · context 31k / 258k (12%) reported by Codex\n',
    );
  });

  it('ignores other events and forgets the figures on reset', () => {
    const tracker = new ContextUseTracker();
    tracker.observe({ type: 'context.warning' });
    expect(tracker.current).toBeUndefined();
    tracker.observe({
      type: 'context.budgeted',
      availableInputTokens: 10,
      estimate: { tokens: 5, confidence: 'exact' },
    });
    expect(tracker.current).toEqual({ usedTokens: 5, availableInputTokens: 10, exact: true });
    tracker.reset();
    expect(tracker.current).toBeUndefined();
  });

  it("adds the session's cost so far and the next request's once a priced step completed, and forgets the next on reset", () => {
    const tracker = new ContextUseTracker();
    const prices = {
      currency: 'USD',
      inputPerMillion: 1,
      cachedInputPerMillion: 0.1,
      outputPerMillion: 4,
      source: 'table',
    };
    tracker.costs.start({
      cost: { currency: 'USD', freshInput: 0.01, cachedInput: 0, cacheWrite: 0, output: 0.01, total: 0.02 },
      inputTokens: 10_000,
      cachedTokens: 0,
      unpricedSteps: 0,
    });
    expect(renderStatusLine({ model: 'm:x', mode: 'warn', use: undefined, style: plain, costs: tracker.costs })).toBe(
      '─ m:x · mode warn · context – · $0.02 so far\n',
    );
    tracker.observe({ type: 'run.started', prices });
    tracker.observe({
      type: 'model.step.completed',
      usage: { inputTokens: 20_000, cacheReadTokens: 10_000, outputTokens: 1000 },
      cost: { currency: 'USD', freshInput: 0.01, cachedInput: 0.001, cacheWrite: 0, output: 0.004, total: 0.015 },
    });
    // The last request's 20,000 input tokens are what the provider still caches for the next one.
    expect(tracker.costs.cachedPrefixTokens).toBe(20_000);
    tracker.priced({ warmInput: 0.003 });
    const line = () =>
      renderStatusLine({
        model: 'm:x',
        mode: 'warn',
        use: undefined,
        style: plain,
        costs: tracker.costs,
        nextInputCost: tracker.nextInputCost,
      });
    expect(line()).toBe('─ m:x · mode warn · context – · $0.035 so far · next ~$0.003\n');
    expect(tracker.costs.soFar?.cacheHitRatio).toBeCloseTo(1 / 3, 12);
    tracker.reset();
    expect(tracker.costs.cachedPrefixTokens).toBe(0);
    expect(line()).toBe('─ m:x · mode warn · context – · $0.035 so far\n');
    tracker.costs.start(undefined);
    expect(renderStatusLine({ model: 'm:x', mode: 'warn', use: undefined, style: plain, costs: tracker.costs })).toBe(
      '─ m:x · mode warn · context –\n',
    );
  });

  it('colours a full context red', () => {
    const line = renderStatusLine({
      model: 'm:x',
      mode: 'warn',
      use: { usedTokens: 10, availableInputTokens: 10, exact: true },
      style: createStyle(true),
    });
    expect(line).toContain('\u001b[31mcontext 10 / 10 (100%)\u001b[39m');
  });
});

describe('compactTokens', () => {
  it('keeps small counts whole and shortens large ones', () => {
    expect([0, 999, 1000, 1049, 12_345, 99_999, 119_808, 1_050_000].map(compactTokens)).toEqual([
      '0',
      '999',
      '1k',
      '1k',
      '12.3k',
      '100k',
      '120k',
      '1.05M',
    ]);
  });
});
