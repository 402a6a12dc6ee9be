import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { findUnpairedToolCalls, type Message } from '@forge/core';
import { createSession } from '@forge/persistence';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompactPreviewReport } from '../session/compact-preview.js';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-compact-');
  forgeHome = await temporaryDirectory('forge-compact-home-');
});

afterEach(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

const forge = (args: readonly string[]) => runCli(args, { cwd: workspace.path, env: { FORGE_HOME: forgeHome.path } });

/** `turns` turns of about 1,000 tokens each (by the conservative estimate), with a tool exchange in every other one. */
function longConversation(turns: number): Message[] {
  const messages: Message[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push({ role: 'user', content: `Request ${turn}: ${'please look at this code '.repeat(40)}` });
    if (turn % 2 === 1) {
      messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'read_file', input: { path: `src/${turn}.ts` } }] });
      messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `call_${turn}`, toolName: 'read_file', output: { type: 'text', value: 'x'.repeat(1200) } }] });
    }
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `Answer ${turn}: ${'done '.repeat(60)}` }] });
  }
  return messages;
}

async function storedSession(messages: readonly Message[]): Promise<{ id: string; logFile: string; directory: string }> {
  const writer = await createSession(forgeHome.path, { workspaceRoot: workspace.path });
  await writer.appendMessages(messages);
  await writer.close();
  return { id: writer.id, logFile: writer.logFile, directory: writer.directory };
}

describe('forge compact --dry-run', () => {
  it('shows the eligible prefix, the kept tail and the projected budget, and writes nothing', async () => {
    const session = await storedSession(longConversation(40));
    const logBefore = await readFile(session.logFile);
    const filesBefore = await readdir(session.directory);
    const runsBefore = await readdir(path.join(forgeHome.path, 'runs'));

    const text = await forge(['compact', '--dry-run', '--session', session.id]);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('');
    expect(text.stdout).toContain(`Compaction preview for ${session.id} (dry run: no model call, nothing written)`);
    expect(text.stdout).toMatch(/transcript\s+120 messages · ~[\d,]+ tokens/);
    expect(text.stdout).toMatch(/eligible prefix\s+#1–#\d+ \(\d+ messages, \d+ groups\) · ~[\d,]+ tokens/);
    expect(text.stdout).toMatch(/kept verbatim\s+#\d+–#120 \(\d+ messages, \d+ groups\) · ~[\d,]+ tokens \(recent tail budget 12,000\)/);
    expect(text.stdout).toMatch(/projected history\s+~[\d,]+ → ~[\d,]+ tokens \(checkpoint of ~1,200\) · saves ~[\d,]+/);

    const json = await forge(['compact', '--dry-run', '--session', session.id, '--json']);
    const report = JSON.parse(json.stdout) as CompactPreviewReport;
    expect(report).toMatchObject({ sessionId: session.id, dryRun: true, modelCalls: 0, writes: 0, recentTailTokens: 12_000, summaryTargetTokens: 1_200 });
    expect(report.eligiblePrefix.start).toBe(0);
    expect(report.eligiblePrefix.end).toBe(report.keptTail.start);
    expect(report.keptTail.end).toBe(120);
    expect(report.keptTail.tokens).toBeLessThanOrEqual(12_000);
    expect(report.eligiblePrefix.tokens + report.keptTail.tokens).toBe(report.transcript.tokens);
    expect(report.projected).toEqual({
      historyTokensBefore: report.transcript.tokens,
      historyTokensAfter: 1_200 + report.keptTail.tokens,
      savedTokens: report.transcript.tokens - 1_200 - report.keptTail.tokens,
    });
    expect(text.stdout).toContain(`#${report.keptTail.start + 1}–#120 (${report.keptTail.messages} messages`);

    expect((await readFile(session.logFile)).equals(logBefore)).toBe(true);
    expect(await readdir(session.directory)).toEqual(filesBefore);
    expect(await readdir(path.join(forgeHome.path, 'runs'))).toEqual(runsBefore);
  });

  it('never cuts between a tool call and its result', async () => {
    const session = await storedSession(longConversation(40));
    const report = JSON.parse((await forge(['compact', '--dry-run', '--session', session.id, '--json'])).stdout) as CompactPreviewReport;
    const messages = longConversation(40);
    expect(report.keptTail.start).toBeGreaterThan(0);
    expect(messages[report.keptTail.start]?.role).not.toBe('tool');
    expect(findUnpairedToolCalls(messages.slice(0, report.keptTail.start))).toEqual([]);
    expect(findUnpairedToolCalls(messages.slice(report.keptTail.start))).toEqual([]);
  });

  it('says there is nothing to compact when the history fits the recent tail, and finds the session with --last', async () => {
    await storedSession(longConversation(2));
    const result = await forge(['compact', '--dry-run', '--last']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('eligible prefix    none');
    expect(result.stdout).toMatch(/projected history\s+~[\d,]+ tokens: nothing to compact, the history fits the recent tail/);
  });

  it.each([
    ['without --dry-run', ['compact', '--last'], /compaction arrives with the checkpoint work and is not available yet; use --dry-run/],
    ['without a session', ['compact', '--dry-run'], /say which session to preview: --session <id> or --last/],
    ['for an unknown session', ['compact', '--dry-run', '--session', 'session_none'], /No session session_none in /],
    ['for a hostile id', ['compact', '--dry-run', '--session', '../x'], /--session "..\/x" is not a session id/],
  ])('exits 2 %s', async (_name, args, message) => {
    const result = await forge(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
