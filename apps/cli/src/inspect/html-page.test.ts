import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';
import { CHROMIUM_ARGS, ensureChromium } from './chromium.test-helpers.js';
import {
  compactionRunEvents,
  envelopeLines,
  recordRun,
  toolRunSteps,
  writeTraceLines,
} from './trace-fixtures.test-helpers.js';

let home: Awaited<ReturnType<typeof temporaryDirectory>>;
let browser: Browser;

beforeAll(async () => {
  home = await temporaryDirectory('forge-inspect-html-');
  const executablePath = await ensureChromium();
  browser = await chromium.launch({ executablePath, args: [...CHROMIUM_ARGS] });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await home?.remove();
});

/** Writes the page with `forge inspect <id> --html` and opens it, recording every request the page makes. */
async function openReport(runId: string): Promise<{ page: Page; requests: string[]; file: string }> {
  const file = path.join(home.path, `${runId}.html`);
  const { code } = await runCli(['inspect', runId, '--html', file], { cwd: home.path, env: { FORGE_HOME: home.path } });
  expect(code).toBe(0);
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.route(/^(?!file:)/, (route) => route.abort());
  await page.goto(pathToFileURL(file).href);
  return { page, requests, file };
}

describe('the --html page in headless Chromium', () => {
  it('draws one stacked bar per step with compaction and stop markers, and loads nothing', async () => {
    await writeTraceLines(home.path, 'run_compact', envelopeLines('run_compact', compactionRunEvents()));
    const { page, requests, file } = await openReport('run_compact');

    const chart = page.locator('section[data-run-id="run_compact"] svg.context-chart');
    await expect(chart.count()).resolves.toBe(1);
    await expect(chart.locator('g.step-bar').count()).resolves.toBe(4);
    await expect(
      chart.locator('g.step-bar').evaluateAll((bars) => bars.map((bar) => bar.getAttribute('data-step'))),
    ).resolves.toEqual(['1', '2', '3', '4']);
    await expect(
      chart
        .locator('g.step-bar')
        .nth(2)
        .locator('rect.segment')
        .evaluateAll((rects) => rects.map((rect) => rect.getAttribute('data-category'))),
    ).resolves.toEqual(['instructions', 'checkpoint', 'history', 'request', 'continuation', 'toolSchemas', 'overhead']);
    await expect(chart.locator('circle.reported-point').count()).resolves.toBe(4);
    await expect(
      chart
        .locator('g.compaction-marker')
        .evaluateAll((markers) =>
          markers.map((marker) => [marker.getAttribute('data-before-step'), marker.getAttribute('data-outcome')]),
        ),
    ).resolves.toEqual([
      ['3', 'completed'],
      ['5', 'failed'],
    ]);
    await expect(chart.locator('g.stop-marker').count()).resolves.toBe(1);
    await expect(chart.locator('line.window-line').count()).resolves.toBe(1);

    // The bars are really laid out: step 4 (14,180 estimated tokens) is taller than step 3 (7,880).
    const third = await chart.locator('g.step-bar').nth(2).boundingBox();
    const fourth = await chart.locator('g.step-bar').nth(3).boundingBox();
    expect(third?.height).toBeGreaterThan(50);
    expect((fourth?.height ?? 0) / (third?.height ?? 1)).toBeCloseTo(14_180 / 7880, 1);

    await expect(page.locator('table.budget-table tbody tr').count()).resolves.toBe(4);
    await expect(page.locator('table.compactions-table tbody tr').count()).resolves.toBe(2);
    await expect(page.locator('p.files-in-hand').innerText()).resolves.toBe(
      'Files in hand after the compaction before step 3: README.md',
    );
    // What the request kept verbatim after the compaction, in its own column.
    await expect(page.locator('table.compactions-table thead th').nth(5).textContent()).resolves.toBe('kept verbatim');
    await expect(
      page.locator('table.compactions-table tbody tr').first().locator('td').nth(5).textContent(),
    ).resolves.toBe('4,300');
    expect(requests).toEqual([pathToFileURL(file).href]);
    const html = await readFile(file, 'utf8');
    expect(html).not.toMatch(/\b(src|href|srcset|action)=/i);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    );

    const screenshot = path.join(home.path, 'run_compact.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect((await stat(screenshot)).size).toBeGreaterThan(10_000);
    await page.close();
  });

  it('charts a real run: one bar per step stacked by category, a dot for each reported input', async () => {
    await recordRun(home.path, { runId: 'run_tools', steps: toolRunSteps });
    const { page, requests, file } = await openReport('run_tools');
    const chart = page.locator('svg.context-chart');
    await expect(chart.locator('g.step-bar').count()).resolves.toBe(4);
    await expect(
      chart.locator('g.step-bar').first().locator('rect.segment[data-category="toolSchemas"]').count(),
    ).resolves.toBe(1);
    await expect(chart.locator('circle.reported-point').count()).resolves.toBe(4);
    await expect(chart.locator('g.compaction-marker').count()).resolves.toBe(0);
    await expect(page.locator('table.tools-table tbody tr').count()).resolves.toBe(3);
    expect(requests).toEqual([pathToFileURL(file).href]);
    await page.close();
  });

  it('charts the provider-reported input when a trace has no estimates', async () => {
    const events = compactionRunEvents().filter((event) => event.type !== 'context.budgeted');
    await writeTraceLines(home.path, 'run_unbudgeted', envelopeLines('run_unbudgeted', events));
    const { page } = await openReport('run_unbudgeted');
    const chart = page.locator('svg.context-chart');
    await expect(chart.locator('g.step-bar').count()).resolves.toBe(4);
    await expect(chart.locator('rect.segment[data-category="reported"]').count()).resolves.toBe(4);
    await expect(chart.locator('g.compaction-marker').count()).resolves.toBe(2);
    await page.close();
  });

  it('shows markup from a trace as text: no script runs and nothing is fetched', async () => {
    const hostile = '<img src="http://127.0.0.1:9/pixel.png"><script>window.forgeInjected = true</script>';
    const events = compactionRunEvents().map((event) =>
      event.type === 'tool.call.completed'
        ? { ...event, toolName: hostile }
        : event.type === 'context.compaction.failed'
          ? { ...event, reason: hostile }
          : event,
    );
    await writeTraceLines(home.path, 'run_hostile', envelopeLines('run_hostile', events));
    const { page, requests, file } = await openReport('run_hostile');

    await expect(
      page.evaluate(() => (globalThis as { forgeInjected?: boolean }).forgeInjected),
    ).resolves.toBeUndefined();
    await expect(page.locator('img').count()).resolves.toBe(0);
    await expect(page.locator('table.tools-table').innerText()).resolves.toContain(hostile);
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(await readFile(file, 'utf8')).not.toContain('<img');
    await page.close();
  });
});
