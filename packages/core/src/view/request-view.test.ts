import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeContextBudget } from '../budget/budget.js';
import { resolveContextPolicy, type ContextMode } from '../budget/policy.js';
import type { TokenCategories, TokenEstimate } from '../model/adapter.js';
import { ScriptedModel } from '../testing/index.js';
import { transcriptArbitrary } from './transcript-arbitrary.test-helpers.js';
import { decideRequest, selectRequestView, selectViewRange, summarizeView, ViewHoleError } from './request-view.js';

const modes = fc.constantFrom<ContextMode>('off', 'warn', 'shadow', 'compact');

function estimateOf(categories: Partial<TokenCategories>): TokenEstimate {
  const full: TokenCategories = {
    instructions: 0,
    checkpoint: 0,
    history: 0,
    request: 0,
    continuation: 0,
    toolSchemas: 0,
    overhead: 0,
    ...categories,
  };
  return {
    tokens: Object.values(full).reduce((sum, value) => sum + value, 0),
    method: 'provider-tokenizer',
    confidence: 'exact',
    categories: full,
  };
}

describe('selectRequestView', () => {
  it('leaves no stored message out, in any mode, window, tail budget or checkpoint (the no-hole invariant)', async () => {
    await fc.assert(
      fc.asyncProperty(
        transcriptArbitrary({ maxTurns: 10 }),
        modes,
        fc.integer({ min: 200, max: 200_000 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (transcript, mode, window, recentTailTokens, cut) => {
          const model = new ScriptedModel([], { capabilities: { contextWindowTokens: window, maxOutputTokens: 100 } });
          const coveredThrough =
            cut === undefined || transcript.length === 0 ? undefined : cut % (transcript.length + 1);
          const checkpoint =
            coveredThrough === undefined
              ? undefined
              : { id: 'cp_test', coveredThrough, text: '[SESSION_CHECKPOINT v1]' };
          const policy = resolveContextPolicy({ mode, recentTailTokens, reservedOutputTokens: 100, bufferTokens: 100 });
          const view = await selectRequestView({
            transcript,
            ...(checkpoint === undefined ? {} : { checkpoint }),
            policy,
            model,
            fixed: { instructions: 'Be brief.', currentRequest: { role: 'user', content: 'next' }, tools: [] },
          });
          expect(view.omitted).toBe(0);
          const covered = view.checkpoint?.coveredThrough ?? 0;
          expect(view.tailStart).toBe(covered);
          expect(view.end).toBe(transcript.length);
          // Every stored message is in the checkpoint's range or in the verbatim history, in order.
          expect([...transcript.slice(0, covered), ...view.request.history]).toEqual(transcript);
          if (mode !== 'compact') {
            expect(view.request.checkpoint).toBeUndefined();
            expect(view.request.history).toEqual(transcript);
          }
          expect(view.budget.estimate).toEqual(await model.estimateRequestTokens(view.request));
          expect(view.decision).toEqual(decideRequest(view.budget));
        },
      ),
    );
  });

  it('sends a stored checkpoint in mode compact only, and says when it is not used', () => {
    const checkpoint = { id: 'cp_1', coveredThrough: 3, text: 'view' };
    expect(selectViewRange({ messageCount: 5, checkpoint, mode: 'compact' })).toMatchObject({
      checkpoint,
      coveredThrough: 3,
      tailStart: 3,
      end: 5,
      omitted: 0,
    });
    for (const mode of ['off', 'warn', 'shadow'] as const) {
      const range = selectViewRange({ messageCount: 5, checkpoint, mode });
      expect(range).toMatchObject({
        coveredThrough: 0,
        tailStart: 0,
        end: 5,
        omitted: 0,
        unusedCheckpoint: { id: 'cp_1', mode },
      });
      expect(range.checkpoint).toBeUndefined();
    }
    expect(() => selectViewRange({ messageCount: 2, checkpoint, mode: 'compact' })).toThrow(
      /covers messages \[0, 3\) of a transcript of 2/,
    );
  });
});

describe('decideRequest', () => {
  const window = { contextWindowTokens: 10_000, source: 'table' as const };
  const decide = (mode: ContextMode, categories: Partial<TokenCategories>) =>
    decideRequest(
      computeContextBudget({
        capabilities: window,
        estimate: estimateOf(categories),
        policy: resolveContextPolicy({ mode, reservedOutputTokens: 1000, bufferTokens: 1000 }),
      }),
    );

  it('compacts only past the threshold in mode compact, and sends the whole history below it', () => {
    // available 9,000: compaction threshold 7,650, target 4,500
    expect(decide('compact', { request: 10, history: 7640 })).toEqual({ kind: 'send' });
    expect(decide('compact', { request: 10, history: 7641 })).toEqual({ kind: 'compact', trigger: 'threshold' });
    expect(decide('compact', { request: 10, history: 8991 })).toEqual({ kind: 'compact', trigger: 'over_budget' });
    expect(decide('compact', { request: 9001 })).toEqual({ kind: 'cannot_fit', reason: 'mandatory_context' });
  });

  it('never compacts in off, warn and shadow: it sends whatever fits and stops what does not', () => {
    for (const mode of ['off', 'warn', 'shadow'] as const) {
      expect(decide(mode, { request: 10, history: 8990 })).toEqual({ kind: 'send' });
      expect(decide(mode, { request: 10, history: 8991 })).toEqual({ kind: 'cannot_fit', reason: 'whole_history' });
      expect(decide(mode, { request: 9001 })).toEqual({ kind: 'cannot_fit', reason: 'mandatory_context' });
    }
  });
});

describe('summarizeView', () => {
  it('throws a ViewHoleError rather than report a request that leaves messages out', () => {
    expect(summarizeView({ stored: 10, covered: 4, verbatim: 6, checkpointId: 'cp_1' })).toEqual({
      checkpointId: 'cp_1',
      coveredMessages: 4,
      verbatimMessages: 6,
      omitted: 0,
    });
    expect(() => summarizeView({ stored: 10, covered: 4, verbatim: 5 })).toThrow(ViewHoleError);
    expect(() => summarizeView({ stored: 10, covered: 4, verbatim: 5 })).toThrow(/1 would be left out/);
  });
});
