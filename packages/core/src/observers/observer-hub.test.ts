import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../events/events.js';
import { createInstructionSnapshot } from '../instructions.js';
import { createRedactor } from '../redaction/redactor.js';
import { runAgent } from '../run/run-agent.js';
import { ScriptedModel } from '../testing/index.js';
import type { ApprovalGate, Tool } from '../tools/tool.js';
import { createObserverHub, type Observer } from './observer-hub.js';

const instructions = createInstructionSnapshot('You are a test agent.');
const allowAll: ApprovalGate = { check: async () => ({ kind: 'allow' }) };
const githubToken = `ghp_${'k3Y9mP2x'.repeat(5)}`;
const configuredSecret = 'tenant-password-Zq81';

const shell: Tool = {
  name: 'shell',
  description: 'Runs a command.',
  inputSchema: { type: 'object', properties: { command: { type: 'string' } } },
  risk: 'execute',
  describe: (input) => `$ ${(input as { command: string }).command}`,
  execute: async (input) => ({ output: { type: 'text', value: `ran ${(input as { command: string }).command}` } }),
};

describe('observers in runAgent', () => {
  it('see secrets in tool summaries and error messages only as redaction markers, while the host sees the raw events', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            toolName: 'shell',
            input: { command: `git push https://x:${githubToken}@github.com/o/r ${configuredSecret}` },
          },
        ],
      },
      { error: new Error(`upstream rejected key ${githubToken} (${configuredSecret})`) },
    ]);
    const host: EventEnvelope[] = [];
    const observed: EventEnvelope[] = [];
    const hub = createObserverHub({
      redactor: createRedactor({ secrets: [configuredSecret] }),
      observers: [(envelope) => void observed.push(envelope)],
    });

    const result = await runAgent({
      model,
      instructions,
      request: 'push',
      tools: [shell],
      approvals: allowAll,
      onEvent: (envelope) => host.push(envelope),
      observers: hub,
    });

    expect(result.status).toBe('failed');
    expect(observed.map((envelope) => envelope.event.type)).toEqual(host.map((envelope) => envelope.event.type));
    const observedText = JSON.stringify(observed);
    expect(observedText).not.toContain(githubToken);
    expect(observedText).not.toContain(configuredSecret);
    expect(observedText).toContain('[REDACTED:');
    expect(JSON.stringify(host)).toContain(githubToken);
    const started = observed.find((envelope) => envelope.event.type === 'tool.call.started');
    expect(started?.event).toMatchObject({
      toolName: 'shell',
      summary: expect.stringContaining('git push https://x:[REDACTED:'),
    });
  });

  it('cannot change what the loop, the host or other observers see, and a throwing observer does not stop the run', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'shell', input: { command: 'ls' } }], usage: { inputTokens: 100, outputTokens: 5 } },
      { text: 'done', usage: { inputTokens: 120, outputTokens: 3 } },
    ]);
    const vandal: Observer = (envelope) => {
      const event = envelope.event as { type: string; usage?: { inputTokens?: number }; tools?: string[] };
      if (event.type === 'run.started') event.tools?.push('grant_everything');
      if (event.usage !== undefined) event.usage.inputTokens = 1_000_000;
      (envelope as { runId: string }).runId = 'hijacked';
    };
    const rejecting: Observer = async () => {
      throw new Error('async observer failed');
    };
    const calm: EventEnvelope[] = [];
    const host: EventEnvelope[] = [];
    const errors: { message: string; index: number }[] = [];
    const hub = createObserverHub({
      redactor: createRedactor(),
      observers: [vandal, rejecting, (envelope) => void calm.push(envelope)],
      onObserverError: (error, index) => errors.push({ message: (error as Error).message, index }),
    });

    const result = await runAgent({
      model,
      instructions,
      request: 'list',
      tools: [shell],
      approvals: allowAll,
      onEvent: (envelope) => host.push(envelope),
      observers: hub,
    });
    await new Promise((resolve) => setImmediate(resolve));

    expect(result.status).toBe('completed');
    expect(result.usage.inputTokens).toBe(220);
    expect(result.runId).not.toBe('hijacked');
    expect(calm).toHaveLength(host.length);
    for (const [index, envelope] of calm.entries()) expect(envelope).toEqual(host[index]);
    expect(calm[0]?.event).toMatchObject({ type: 'run.started', tools: ['shell'] });
    expect(host.every((envelope) => envelope.runId === result.runId)).toBe(true);

    expect(hub.failures()).toBe(host.length * 2);
    const vandalErrors = errors.filter((error) => error.index === 0);
    expect(vandalErrors).toHaveLength(host.length);
    for (const error of vandalErrors) expect(error.message).toMatch(/read only|not extensible/);
    expect(errors.filter((error) => error.index === 1).map((error) => error.message)).toEqual(
      host.map(() => 'async observer failed'),
    );
  });

  it('ignores an error reporter that throws, and skips all work without observers', async () => {
    const hub = createObserverHub({
      redactor: createRedactor(),
      observers: [
        () => {
          throw new Error('boom');
        },
      ],
      onObserverError: () => {
        throw new Error('reporter broke too');
      },
    });
    const model = new ScriptedModel([{ text: 'hi' }]);
    expect((await runAgent({ model, instructions, request: 'hi', observers: hub })).status).toBe('completed');
    // run.started, context.budgeted, model.step.started, model.text.delta, model.step.completed, context.usage.reconciled, run.completed
    expect(hub.failures()).toBe(7);

    const idle = createObserverHub({
      redactor: {
        redact: () => {
          throw new Error('must not run');
        },
        redactJson: () => {
          throw new Error('must not run');
        },
      },
      observers: [],
    });
    expect(
      (await runAgent({ model: new ScriptedModel([{ text: 'hi' }]), instructions, request: 'hi', observers: idle }))
        .status,
    ).toBe('completed');
  });
});
