import type { Message } from '@forge/core';
import type { ContextReport } from '@forge/core/budget';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { createSession } from '@forge/persistence';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompactPreviewReport } from '@forge/sessions';
import type { CompactionDocument } from '../session/compaction-output.js';
import { temporaryDirectory } from '../test-support/cli-harness.js';
import { buildPrivateBinary, spawnForge } from '../test-support/private-build.js';

/*
 * One counter, end to end, through the built binary with an OpenAI model (exact o200k counts)
 * whose requests go to the loopback server: `forge compact --dry-run` predicts exactly what
 * `forge compact` then does, and `forge context` counts the same history the same way before and
 * after. The CLI is bundled into a private directory, so a parallel build never changes it.
 */

let build: ReturnType<typeof buildPrivateBinary>;
let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;
let provider: LoopbackProvider;

beforeAll(async () => {
  build = buildPrivateBinary('agreement-test');
  workspace = await temporaryDirectory('forge-agreement-');
  forgeHome = await temporaryDirectory('forge-agreement-home-');
  provider = await startLoopbackProvider();
}, 120_000);

afterAll(async () => {
  await provider.close();
  await workspace.remove();
  await forgeHome.remove();
  build.remove();
});

function forge(args: readonly string[]) {
  return spawnForge(build.bin, [...args, '--model', 'openai:gpt-5.1'], {
    cwd: workspace.path,
    env: {
      PATH: process.env.PATH ?? '',
      FORGE_HOME: forgeHome.path,
      OPENAI_API_KEY: 'sk-test-key',
      OPENAI_BASE_URL: provider.baseURL,
    },
  });
}

async function json<T>(args: readonly string[]): Promise<T> {
  const outcome = await forge([...args, '--json']);
  expect(outcome.stderr).toBe('');
  expect(outcome.code).toBe(0);
  return JSON.parse(outcome.stdout) as T;
}

/** Forty turns of prose, code and tool output: about 60,000 o200k tokens. */
function conversation(): Message[] {
  const messages: Message[] = [];
  for (let index = 0; index < 40; index += 1) {
    messages.push({
      role: 'user',
      content: `Turn ${index}: why does the lexer reject \`let x = ${index};\`? Keep the public API stable. ${'Explain each step. '.repeat(20)}`,
    });
    messages.push({
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: `call_${index}`,
          toolName: 'read_file',
          input: { path: `src/lexer_${index}.ts` },
        },
      ],
    });
    const code = `export function lex${index}(source: string): Token[] {\n  const tokens: Token[] = [];\n  for (const char of source) tokens.push(classify(char, ${index}));\n  return tokens;\n}\n`;
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `call_${index}`,
          toolName: 'read_file',
          output: { type: 'text', value: code.repeat(6) },
        },
      ],
    });
    messages.push({
      role: 'assistant',
      content: [
        {
          type: 'text',
          text: `The classifier for turn ${index} treats \`=\` as an operator only after an identifier. ${'Detail. '.repeat(30)}`,
        },
      ],
    });
  }
  return messages;
}

describe('one counter for dry run, compaction and forge context (OpenAI model, loopback provider, built binary)', () => {
  it('predicts the real compaction within 1 %, and forge context counts the same requests before and after', async () => {
    const writer = await createSession(forgeHome.path, { workspaceRoot: workspace.path });
    await writer.appendMessages(conversation());
    await writer.close();
    const id = writer.id;

    const context = await json<ContextReport>(['context', '--resume', id]);
    expect(context.budget.estimate).toMatchObject({ method: 'provider-tokenizer', confidence: 'exact' });
    expect(context.retainedMessages).toBe(160);
    expect(context.view).toEqual({ coveredMessages: 0, verbatimMessages: 160, omitted: 0 });

    const preview = await json<CompactPreviewReport>(['compact', '--dry-run', '--session', id]);
    expect(preview).toMatchObject({
      outcome: 'compact',
      model: 'openai:gpt-5.1',
      tokenEstimator: 'provider-tokenizer',
      modelCalls: 0,
      writes: 0,
    });
    expect(preview.projected.requestTokensBefore).toBe(context.budget.estimate.tokens);

    const real = await json<CompactionDocument>(['compact', '--session', id]);
    expect(real.outcome).toBe('compacted');
    const within = (predicted: number, actual: number) =>
      expect(Math.abs(predicted - actual)).toBeLessThanOrEqual(actual * 0.01);
    within(preview.projected.requestTokensBefore, real.tokensBefore ?? 0);
    within(preview.projected.requestTokensAfter, real.tokensAfter ?? 0);
    expect(real.checkpoint?.tailStart).toBe(preview.keptTail.start);

    const after = await json<ContextReport>(['context', '--resume', id]);
    expect(after.budget.estimate.tokens).toBe(real.tokensAfter);
    expect(after.view).toEqual({
      checkpointId: real.checkpoint?.id,
      coveredMessages: preview.keptTail.start,
      verbatimMessages: 160 - preview.keptTail.start,
      omitted: 0,
    });

    // The next turn sends that request (plus its own message) to the provider.
    provider.enqueue(turn({ text: 'Continuing.', usage: { inputTokens: 100, outputTokens: 2 } }));
    const run = await forge(['run', '--resume', id, '--json', 'Go on.']);
    expect(run.code).toBe(0);
    const budgeted = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: { type: string; view?: unknown; estimate?: { tokens: number } } })
      .find((envelope) => envelope.event.type === 'context.budgeted');
    expect(budgeted?.event.view).toEqual(after.view);
    expect(budgeted?.event.estimate?.tokens).toBeGreaterThan(after.budget.estimate.tokens);
    expect(JSON.stringify(provider.requests.at(-1)?.body)).toContain('[SESSION_CHECKPOINT v1]');
  }, 180_000);
});
