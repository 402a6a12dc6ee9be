import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, ensureChromium } from '@forge/cli/test-helpers/chromium';
import { useBundle, userSetup } from './support/bundle.js';

/*
 * `forge inspect --html` from the bundle, on the trace of a run the bundle made, opened in real
 * headless Chromium: the chart has one bar per model step, the tool table counts the calls, and
 * the page loads nothing from anywhere.
 */

const fixture = useBundle('bundle-inspect');
let browser: Browser;

beforeAll(async () => {
  const executablePath = await ensureChromium();
  browser = await chromium.launch({ executablePath, args: [...CHROMIUM_ARGS] });
}, 600_000);

afterAll(async () => {
  await browser?.close();
});

describe('the bundled forge inspect --html', () => {
  it('writes a self-contained page of a real run that Chromium draws step by step', async () => {
    const user = await userSetup(fixture, 'inspect');
    await writeFile(path.join(user.workspace, 'a.txt'), 'alpha\n');
    await writeFile(path.join(user.workspace, 'b.txt'), 'beta\n');
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'read_file', input: { path: 'a.txt' } }] },
      {
        toolCalls: [
          { toolName: 'read_file', input: { path: 'b.txt' } },
          { toolName: 'read_file', input: { path: 'missing.txt' } },
        ],
      },
      { text: 'Read both.' },
    ]);
    const run = await user.forge(['run', '--model', 'scripted:file', 'Read the files'], script);
    expect(run.code).toBe(0);

    const file = path.join(user.forgeHome, 'report.html');
    const inspected = await user.forge(['inspect', '--last', '--html', file]);
    expect(inspected.stderr).toBe(`forge: wrote the HTML report to ${file}\n`);
    expect(inspected.code).toBe(0);

    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.route(/^(?!file:)/, (route) => route.abort());
    await page.goto(pathToFileURL(file).href);
    try {
      const chart = page.locator('svg.context-chart');
      await expect(chart.count()).resolves.toBe(1);
      await expect(
        chart.locator('g.step-bar').evaluateAll((bars) => bars.map((bar) => bar.getAttribute('data-step'))),
      ).resolves.toEqual(['1', '2', '3']);
      // Every bar is drawn with a real height: the estimates the run recorded reached the page.
      const heights = await chart
        .locator('g.step-bar rect.segment')
        .evaluateAll((rects) => rects.map((rect) => rect.getBoundingClientRect().height));
      expect(heights.some((height) => height > 1)).toBe(true);
      const toolRows = await page
        .locator('table.tools-table tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) => [...row.querySelectorAll('td')].slice(0, 2).map((cell) => cell.textContent)),
        );
      expect(toolRows).toEqual([['read_file', '3']]);
      await expect(page.locator('table.not-ok-table tbody tr').count()).resolves.toBe(1);
      expect(requests).toEqual([pathToFileURL(file).href]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
