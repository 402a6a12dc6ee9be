import { ensureTmux, TmuxTerminal } from '@forge/cli/testing-terminal';
import { startLoopbackProvider, turn } from '@forge/loopback-provider';
import { describe, expect, it } from 'vitest';
import { useBundle, userSetup } from './support/bundle.js';

/*
 * Issue 29, point 10: history recall of a `\`-continued input and the wrap of streamed answers,
 * through the bundled binary in a real terminal (tmux) against the loopback provider over HTTP.
 */

const fixture = useBundle('bundle-first-hour-repl-input');
const OPENAI_KEY = 'sk-test-0123456789abcdef';

/** How often `text` occurs in the request body as the JSON string it is sent as. */
function occurrences(rawBody: string, text: string): number {
  return rawBody.split(JSON.stringify(text).slice(1, -1)).length - 1;
}

describe('10. history recall brings back a continued input whole', () => {
  it('Up after `alpha one \\` + `beta two` shows both lines with their prompts, and Enter sends the same two-line request', async () => {
    ensureTmux();
    const provider = await startLoopbackProvider();
    try {
      const user = await userSetup(fixture, 'history');
      provider.enqueue(turn({ text: ['First reply.'], usage: { inputTokens: 1500, outputTokens: 3 } }));
      provider.enqueue(turn({ text: ['Second reply.'], usage: { inputTokens: 1600, outputTokens: 3 } }));
      const terminal = TmuxTerminal.start({
        command: [process.execPath, fixture.bundle().bin, '--model', 'openai:gpt-5.1'],
        cwd: user.workspace,
        env: { ...user.env, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: provider.baseURL, TERM: 'xterm-256color' },
      });
      try {
        await terminal.waitFor((screen) => screen.includes('Type a request'), 20_000, 'the REPL banner');
        terminal.enter('alpha one \\');
        await terminal.waitFor((screen) => screen.includes('… '), 10_000, 'the continuation prompt');
        terminal.enter('beta two');
        await terminal.waitFor((screen) => screen.includes('First reply.'), 20_000, 'the first reply');
        terminal.press('Up');
        const recalled = await terminal.waitFor(
          (screen) => screen.split('\n').filter((row) => row.startsWith('… beta two')).length >= 2,
          10_000,
          'the recalled two-line input',
        );
        const rows = recalled.split('\n');
        const last = rows.findLastIndex((row) => row.startsWith('… beta two'));
        expect(rows[last - 1], recalled).toBe('› alpha one \\');
        terminal.press('Enter');
        await terminal.waitFor((screen) => screen.includes('Second reply.'), 20_000, 'the second reply');
        const [first, second] = provider.requests;
        expect(occurrences(first?.rawBody ?? '', 'alpha one \nbeta two')).toBe(1);
        // The conversation so far holds it once; the recalled request adds it again, as typed the first time.
        expect(occurrences(second?.rawBody ?? '', 'alpha one \nbeta two')).toBe(2);
        terminal.enter('/exit');
        expect(await terminal.exitCode(20_000)).toBe(0);
      } finally {
        terminal.close();
      }
    } finally {
      await provider.close();
    }
  });
});

describe('10. streamed answers wrap at word boundaries', () => {
  // Cut mid-word across deltas, with wide characters and an accent, so the edge of a 40-column row falls inside words.
  const pieces = [
    'Streaming answers arrive in pie',
    'ces: 日本語の文章 and café words must never be cut at the terminal edge, ',
    'even when a delta ends halfway through a wo',
    'rd like extraordinarily.',
  ];
  const answer = pieces.join('');

  it('forge run on a 40-column terminal shows every word whole on one row', async () => {
    ensureTmux();
    const provider = await startLoopbackProvider();
    try {
      const user = await userSetup(fixture, 'wrap-terminal');
      provider.enqueue(turn({ text: pieces, usage: { inputTokens: 1500, outputTokens: 30 } }));
      const terminal = TmuxTerminal.start({
        command: [process.execPath, fixture.bundle().bin, 'run', '--model', 'openai:gpt-5.1', 'Explain'],
        cwd: user.workspace,
        env: { ...user.env, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: provider.baseURL, TERM: 'xterm-256color' },
        columns: 40,
      });
      try {
        expect(await terminal.exitCode(20_000)).toBe(0);
        const screen = terminal.screen({ rows: true });
        const shown = screen.split('\n').flatMap((row) => row.split(/\s+/).filter(Boolean));
        for (const word of answer.split(/\s+/)) expect(shown, screen).toContain(word);
      } finally {
        terminal.close();
      }
    } finally {
      await provider.close();
    }
  });

  it('forge run into a pipe writes the answer byte for byte, without breaks', async () => {
    const provider = await startLoopbackProvider();
    try {
      const user = await userSetup(fixture, 'wrap-pipe');
      provider.enqueue(turn({ text: pieces, usage: { inputTokens: 1500, outputTokens: 30 } }));
      const run = await user.forge(['run', '--model', 'openai:gpt-5.1', 'Explain'], {
        OPENAI_API_KEY: OPENAI_KEY,
        OPENAI_BASE_URL: provider.baseURL,
        COLUMNS: '40',
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(`${answer}\n`);
    } finally {
      await provider.close();
    }
  });
});
