import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { findUnpairedToolCalls, type Message } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { createSession, loadTranscript } from '@forge/persistence';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompactPreviewReport } from '@forge/sessions';
import type { CheckpointDocument, CompactionDocument } from '../session/compaction-output.js';
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
      messages.push({
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'read_file', input: { path: `src/${turn}.ts` } },
        ],
      });
      messages.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `call_${turn}`,
            toolName: 'read_file',
            output: { type: 'text', value: 'x'.repeat(1200) },
          },
        ],
      });
    }
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `Answer ${turn}: ${'done '.repeat(60)}` }] });
  }
  return messages;
}

async function storedSession(
  messages: readonly Message[],
): Promise<{ id: string; logFile: string; directory: string }> {
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
    expect(text.stdout).toMatch(/eligible prefix\s+messages \[0, \d+\) \(\d+ messages\) · ~[\d,]+ tokens/);
    expect(text.stdout).toMatch(
      /kept verbatim\s+messages \[\d+, 120\) \(\d+ messages\) · ~[\d,]+ tokens \(recent tail budget 12,000\)/,
    );
    expect(text.stdout).toMatch(/next request\s+~[\d,]+ → ~[\d,]+ tokens \(checkpoint of ~[\d,]+\) · saves ~[\d,]+/);
    expect(text.stdout).toContain("Counted by scripted:demo's estimator");

    const json = await forge(['compact', '--dry-run', '--session', session.id, '--json']);
    const report = JSON.parse(json.stdout) as CompactPreviewReport;
    expect(report).toMatchObject({
      sessionId: session.id,
      dryRun: true,
      modelCalls: 0,
      writes: 0,
      recentTailTokens: 12_000,
      model: 'scripted:demo',
      outcome: 'compact',
    });
    expect(report.eligiblePrefix.start).toBe(0);
    expect(report.eligiblePrefix.end).toBe(report.keptTail.start);
    expect(report.keptTail.end).toBe(120);
    expect(report.keptTail.tokens).toBeLessThanOrEqual(12_000);
    expect(report.eligiblePrefix.tokens + report.keptTail.tokens).toBe(report.transcript.tokens);
    expect(report.projected.savedTokens).toBe(
      report.projected.requestTokensBefore - report.projected.requestTokensAfter,
    );
    expect(report.checkpointTokens).toBeGreaterThan(0);
    expect(text.stdout).toContain(`messages [${report.keptTail.start}, 120) (${report.keptTail.messages} messages`);

    expect((await readFile(session.logFile)).equals(logBefore)).toBe(true);
    expect(await readdir(session.directory)).toEqual(filesBefore);
    expect(await readdir(path.join(forgeHome.path, 'runs'))).toEqual(runsBefore);
  });

  it('never cuts between a tool call and its result', async () => {
    const session = await storedSession(longConversation(40));
    const report = JSON.parse(
      (await forge(['compact', '--dry-run', '--session', session.id, '--json'])).stdout,
    ) as CompactPreviewReport;
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
    expect(result.stdout).toMatch(
      /next request\s+~[\d,]+ tokens: nothing to compact \(every completed turn fits the recent tail/,
    );
  });

  it.each([
    ['without a session', ['compact', '--dry-run'], /say which session to preview: --session <id> or --last/],
    ['without a session to compact', ['compact'], /say which session to compact: --session <id> or --last/],
    [
      'for an unknown session',
      ['compact', '--dry-run', '--session', 'session_none'],
      /--session 'session_none': there is no session with this id or prefix in .*; run 'forge sessions list' to see the sessions\n$/,
    ],
    ['for a hostile id', ['compact', '--dry-run', '--session', '../x'], /--session "..\/x" is not a session id/],
  ])('exits 2 %s', async (_name, args, message) => {
    const result = await forge(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe('forge compact', () => {
  it('exits 2 with model-structured and no compactor', async () => {
    await storedSession(longConversation(2));
    const result = await forge(['compact', '--last', '--strategy', 'model-structured']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/needs --compactor <provider:id>/);
  });

  it('makes a checkpoint without a model call or a confirmation, says the transcript is kept, and forge checkpoint show prints it', async () => {
    const messages = longConversation(40);
    const session = await storedSession(messages);
    const result = await forge(['compact', '--session', session.id, '--focus', 'the parser']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `Compacted session ${session.id} with forge-state: messages \\[0, (\\d+)\\) are now checkpoint cp_[0-9a-f]{16} \\(sha256 [0-9a-f]{12}\\); messages \\[\\d+, 120\\) stay verbatim\\.`,
      ),
    );
    expect(result.stdout).toMatch(
      /estimate\s+~[\d,]+ tokens with every unsummarized turn → ~[\d,]+ with the checkpoint and the recent tail \(saves ~[\d,]+\)/,
    );
    expect(result.stdout).toContain(
      'The full transcript is kept; a checkpoint only changes what later turns send. (120 messages)',
    );
    const stored = await loadTranscript(forgeHome.path, session.id);
    expect(stored.messages).toEqual(messages);
    expect(stored.checkpoint?.checkpoint).toMatchObject({
      strategy: 'forge-state',
      safetyLabels: ['untrusted-conversation-memory', 'no-approval-state', 'no-policy-authority'],
    });

    const again = JSON.parse(
      (await forge(['compact', '--session', session.id, '--json'])).stdout,
    ) as CompactionDocument;
    expect(again).toMatchObject({
      sessionId: session.id,
      outcome: 'skipped',
      reason: 'reused',
      transcriptKept: true,
      transcriptMessages: 120,
    });

    const shown = await forge(['checkpoint', 'show', '--session', session.id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^Checkpoint cp_[0-9a-f]{16} of session /);
    expect(shown.stdout).toMatch(
      /strategy\s+forge-state\n\s+summarizes\s+messages \[0, \d+\) \(sha256 [0-9a-f]{12}\)\n\s+use\s+sent by the next turn \(mode compact\); messages \[\d+, 120\) are sent verbatim after it/,
    );
    expect(shown.stdout).toMatch(/view\s+[\d,]+ characters, [\d,]+ tokens/);
    const inWarn = await runCli(['checkpoint', 'show', '--session', session.id, '--context-mode', 'warn'], {
      cwd: workspace.path,
      env: { FORGE_HOME: forgeHome.path },
    });
    expect(inWarn.stdout).toContain(
      'not sent in mode warn: every message [0, 120) is sent verbatim (only mode compact sends checkpoints)',
    );
    expect(shown.stdout).toContain('[SESSION_CHECKPOINT v1]\nstrategy: forge-state\n');
    const document = JSON.parse((await forge(['checkpoint', 'show', '--last', '--json'])).stdout) as CheckpointDocument;
    expect(document.checkpoint).toMatchObject({
      strategy: 'forge-state',
      summarizedThrough: expect.any(Number),
      messageCount: 120,
      sentInMode: true,
      viewTokens: expect.any(Number),
    });
    expect(document.mode).toBe('compact');
    expect(document.view).toBe(shown.stdout.slice(shown.stdout.indexOf('[SESSION_CHECKPOINT v1]')));
  });

  it('is recorded in a trace that forge inspect of the session shows, and finds the session by a unique prefix', async () => {
    const session = await storedSession(longConversation(40));
    const prefix = session.id.slice(0, -4);
    expect((await forge(['compact', '--session', prefix])).code).toBe(0);
    expect((await forge(['compact', '--session', prefix])).code).toBe(0);

    const inspected = await forge(['inspect', session.id]);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout.split('\n')[0]).toBe(
      `Session ${session.id}: 0 run(s) and 2 manual compaction(s) with traces`,
    );
    expect(inspected.stdout).toMatch(
      new RegExp(`Compaction compact_${session.id}_\\S+  \\(forge compact or /compact, session ${session.id}\\)`),
    );
    const report = JSON.parse((await forge(['inspect', session.id, '--json'])).stdout) as {
      runs: { runId: string; kind: string; compactions: { outcome: string; reason?: string }[] }[];
    };
    // A session shows its newest run in full (the second compaction, skipped); --run shows another.
    expect(inspected.stdout).toMatch(/Compactions \(1\)\n\s+before step\s+outcome[^\n]*\n\s+0\s+skipped/);
    const first = await forge(['inspect', session.id, '--run', report.runs[0]?.runId ?? '']);
    expect(first.stdout).toMatch(
      /Compactions \(1\)\n\s+before step\s+outcome\s+strategy[^\n]*\n\s+0\s+completed\s+forge-state/,
    );
    expect(report.runs.map((run) => run.kind)).toEqual(['compaction', 'compaction']);
    expect(report.runs.map((run) => run.compactions.map((row) => row.outcome))).toEqual([['completed'], ['skipped']]);
    expect(report.runs[1]?.compactions[0]?.reason).toMatch(/checkpoint/);
  });

  it('with a compactor model states who receives the conversation, and falls back to forge-state when its reply is malformed', async () => {
    const session = await storedSession(longConversation(40));
    const compactor = new ScriptedModel([{ text: 'not json' }], { provider: 'test', modelId: 'compactor' });
    const result = await runCli(
      ['compact', '--session', session.id, '--strategy', 'model-structured', '--compactor', 'test:compactor', '--json'],
      {
        cwd: workspace.path,
        env: { FORGE_HOME: forgeHome.path },
        models: { compactor },
      },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^forge: Compaction sends the summarized conversation to test:compactor: ~[\d,]+ input tokens and at most [\d,]+ output tokens per compaction\.$/m,
    );
    const document = JSON.parse(result.stdout) as CompactionDocument;
    expect(document).toMatchObject({ outcome: 'compacted', strategy: 'forge-state' });
    expect(document.events.map((event) => event.type)).toEqual([
      'context.compaction.started',
      'context.compaction.failed',
      'context.compaction.completed',
    ]);
    expect(compactor.requests).toHaveLength(1);
  });

  it('forge context then measures the checkpoint view in place of the turns it summarizes, with its provenance', async () => {
    const session = await storedSession(longConversation(40));
    const before = JSON.parse((await forge(['context', '--resume', session.id, '--json'])).stdout) as {
      budget: { estimate: { categories: { checkpoint: number } } };
      checkpoint?: unknown;
    };
    expect(before.checkpoint).toBeUndefined();
    const compacted = JSON.parse(
      (await forge(['compact', '--session', session.id, '--json'])).stdout,
    ) as CompactionDocument;
    const after = JSON.parse((await forge(['context', '--resume', session.id, '--json'])).stdout) as {
      budget: { estimate: { categories: { checkpoint: number } } };
      checkpoint?: { id: string; strategy: string; summarizedThrough: number };
    };
    expect(after.checkpoint).toEqual({
      id: compacted.checkpoint?.id,
      strategy: 'forge-state',
      summarizedThrough: compacted.checkpoint?.summarizedThrough,
      sourceHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(after.budget.estimate.categories.checkpoint).toBeGreaterThan(0);
  });

  it('takes --engine: native compacts with Forge, as documented, and a wrong engine name is a usage error', async () => {
    const session = await storedSession(longConversation(40));
    const native = await forge(['compact', '--session', session.id, '--engine', 'native']);
    expect(native.code, native.stderr).toBe(0);
    expect(native.stdout).toContain(`Compacted session ${session.id} with forge-state`);
    const wrong = await forge(['compact', '--session', session.id, '--engine', 'claude']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--engine');
  });

  it('refuses --strategy or --compactor with --dry-run instead of ignoring them', async () => {
    const session = await storedSession(longConversation(40));
    const refused = await forge([
      'compact',
      '--session',
      session.id,
      '--dry-run',
      '--strategy',
      'model-structured',
      '--compactor',
      'test:compactor',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--dry-run previews the deterministic forge-state checkpoint');
  });

  it('says when a session has no checkpoint', async () => {
    const session = await storedSession(longConversation(2));
    const shown = await forge(['checkpoint', 'show', '--session', session.id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Session ${session.id} has no checkpoint yet`);
    expect(JSON.parse((await forge(['checkpoint', 'show', '--session', session.id, '--json'])).stdout)).toMatchObject({
      checkpoint: null,
      view: null,
    });
  });
});
