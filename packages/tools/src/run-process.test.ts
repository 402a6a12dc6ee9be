import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeadTailBuffer, runProcess } from './run-process.js';

describe('HeadTailBuffer', () => {
  it('keeps everything under the cap, and otherwise exactly the first and last halves', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 12 }),
        fc.integer({ min: 2, max: 64 }),
        (chunks, cap) => {
          const buffer = new HeadTailBuffer(cap);
          for (const chunk of chunks) buffer.append(Buffer.from(chunk));
          const all = Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)));
          const half = Math.floor(cap / 2);
          if (all.length <= 2 * half) {
            expect(buffer.truncated).toBe(false);
            expect(buffer.text()).toBe(all.toString('utf8'));
          } else {
            expect(buffer.truncated).toBe(true);
            const omitted = all.length - 2 * half;
            expect(buffer.text()).toBe(
              `${all.subarray(0, half).toString('utf8')}\n[... ${omitted} bytes of output omitted ...]\n${all.subarray(all.length - half).toString('utf8')}`,
            );
          }
        },
      ),
    );
  });
});

describe('runProcess', () => {
  it('escalates to SIGKILL when a command ignores SIGTERM', async () => {
    const script =
      'process.on("SIGTERM", () => console.log("ignoring SIGTERM")); console.log("ready"); setInterval(() => {}, 1000);';
    const outcome = await runProcess({
      argv: [process.execPath, '-e', script],
      cwd: process.cwd(),
      timeoutMs: 800,
      outputCapBytes: 1024,
      signal: new AbortController().signal,
      killGraceMs: 200,
    });
    expect(outcome).toMatchObject({ timedOut: true, signal: 'SIGKILL', exitCode: null });
    expect(outcome.output).toContain('ignoring SIGTERM');
  });
});
