import { describe, expect, it } from 'vitest';
import { CapturedOutput, waitFor } from '../test-support/cli-harness.js';
import { createStallWatch } from './stall-watch.js';
import { createStyle } from './style.js';

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('createStallWatch', () => {
  it('shows a ticking sign of life after the text when the stream stalls, and erases it before the text goes on', async () => {
    const output = new CapturedOutput();
    const watch = createStallWatch(output, { enabled: true, style: createStyle(false), afterMs: 40 });
    output.write('Half an ans');
    watch.text('Half an ans');
    await pause(20);
    expect(output.text).toBe('Half an ans');
    await waitFor(
      () => output.text,
      (text) => text.length > 'Half an ans'.length,
      2000,
    );
    const sign = ' ⠋ waiting for the model · 0s';
    expect(output.text.startsWith(`Half an ans${sign.slice(0, -2)}`)).toBe(true);
    expect(output.text).toMatch(new RegExp(`^Half an ans ⠋ waiting for the model · \\ds${'\b'.repeat(sign.length)}`));
    watch.erase();
    expect(output.text.endsWith(`${' '.repeat(sign.length)}${'\b'.repeat(sign.length)}`)).toBe(true);
    watch.stop();
    const settled = output.text;
    await pause(100);
    expect(output.text).toBe(settled);
  });

  it('writes nothing when the output is not a terminal', async () => {
    const output = new CapturedOutput();
    const watch = createStallWatch(output, { enabled: false, style: createStyle(false), afterMs: 10 });
    watch.text('text');
    await pause(60);
    watch.stop();
    expect(output.text).toBe('');
  });
});
