import type { EventEnvelope, ForgeEvent } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { CapturedOutput } from '../test-support/cli-harness.js';
import { createTextRenderer } from './event-renderer.js';
import { createStyle } from './style.js';

function envelope(event: Record<string, unknown>, sequence: number): EventEnvelope {
  return {
    schemaVersion: 1,
    runId: 'run_1',
    sequence,
    timestamp: '2026-01-01T00:00:00.000Z',
    event: event as unknown as ForgeEvent,
  } as EventEnvelope;
}

describe('the text renderer', () => {
  it('prints one dim line for a context warning (once per run), a compaction made and a limit stop, and nothing for a shadow build', () => {
    const text = new CapturedOutput();
    const activity = new CapturedOutput();
    const renderer = createTextRenderer({ text, activity, style: createStyle(false) });
    const events = [
      {
        type: 'context.warning',
        step: 1,
        reason: 'threshold',
        usedTokens: 90_000,
        availableInputTokens: 100_000,
        warnAtTokens: 80_000,
        message: 'The next request is estimated at 90,000 tokens, 90% of the 100,000 available for input.',
      },
      {
        type: 'context.warning',
        step: 2,
        reason: 'threshold',
        usedTokens: 91_000,
        availableInputTokens: 100_000,
        warnAtTokens: 80_000,
        message: 'again',
      },
      {
        type: 'context.compaction.completed',
        step: 2,
        trigger: 'threshold',
        strategy: 'forge-state',
        mode: 'compact',
        installed: true,
        reused: false,
        tokensBefore: 91_000,
        tokensAfter: 40_000,
        reclaimedTokens: 51_000,
      },
      {
        type: 'context.compaction.completed',
        step: 2,
        trigger: 'threshold',
        strategy: 'forge-state',
        mode: 'shadow',
        installed: false,
        reused: false,
        tokensBefore: 91_000,
        tokensAfter: 40_000,
        reclaimedTokens: 51_000,
      },
      { type: 'context.limit_reached', step: 3, reason: 'whole_history', message: 'does not fit' },
    ];
    events.forEach((event, index) => renderer.onEvent(envelope(event, index)));
    renderer.finishRun();
    expect(activity.text).toBe(
      [
        '• context: The next request is estimated at 90,000 tokens, 90% of the 100,000 available for input.',
        '• context: compacted (forge-state, threshold) ~91,000 → ~40,000 tokens',
        '• context: stopped before sending (whole_history); see the error below',
        '',
      ].join('\n'),
    );
    renderer.onEvent(envelope({ ...events[0], step: 1 }, 9));
    expect(activity.text.endsWith('90% of the 100,000 available for input.\n')).toBe(true);
    expect(text.text).toBe('');
  });

  it('prints one line when the coverage check repaired a checkpoint before installing it', () => {
    const activity = new CapturedOutput();
    const renderer = createTextRenderer({ text: new CapturedOutput(), activity, style: createStyle(false) });
    const items = [
      { kind: 'constraint', seq: 0, text: 'do not change the test file' },
      { kind: 'changed_file', seq: 4, text: 'src/math.js' },
    ];
    renderer.onEvent(
      envelope(
        {
          type: 'context.checkpoint.coverage',
          version: 1,
          step: 2,
          trigger: 'threshold',
          strategy: 'model-structured',
          outcome: 'repaired',
          items,
          missingCount: 2,
          checkpointId: 'cp_1',
        },
        0,
      ),
    );
    expect(activity.text).toBe(
      '• context: the model-structured checkpoint missed 2 item(s) of the record (constraint #0, changed file #4); they were added before it was installed\n',
    );
  });

  it('wraps streamed text at spaces on a terminal, and passes it byte for byte (sanitized) elsewhere', () => {
    const pieces = ['The quick bro', 'wn fox jum', 'ps over \u001b[2J the lazy dog'];
    const run = (isTTY: boolean) => {
      const text = Object.assign(new CapturedOutput(), { columns: 12 });
      text.isTTY = isTTY;
      const renderer = createTextRenderer({ text, activity: new CapturedOutput(), style: createStyle(false) });
      pieces.forEach((delta, index) => renderer.onEvent(envelope({ type: 'model.text.delta', delta }, index)));
      renderer.finishRun();
      return text.text;
    };
    expect(run(false)).toBe('The quick brown fox jumps over \\x1b[2J the lazy dog\n');
    expect(run(true)).toBe('The quick \nbrown fox \njumps over \n\\x1b[2J the \nlazy dog\n');
  });
});
