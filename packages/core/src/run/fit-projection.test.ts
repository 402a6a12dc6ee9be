import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveContextPolicy, type ContextPolicy } from '../budget/policy.js';
import type { ForgeEvent } from '../events/events.js';
import { createInstructionSnapshot } from '../instructions.js';
import { sha256Hex } from '../hashing.js';
import type { Message, UserMessage } from '../messages.js';
import { runAgent } from './run-agent.js';
import { OPENAI_PROMPT_CACHE } from '../pricing/prompt-cache.js';
import { ScriptedModel } from '../testing/index.js';
import type { Tool } from '../tools/tool.js';
import { splitIntoGroups } from '../view/groups.js';
import type { ContextManager } from '../compaction/context-manager.js';
import { fitRequest } from './fit-request.js';
import { RunContext, type PromptCacheObservation, type StepInput } from './prepare-request.js';
import { preflightStep } from './preflight.js';

/*
 * Projection inside a run, driven through the fit and preflight phases of its first step: which older tool outputs go (the
 * superseded first, then the oldest), which stay (the newest distinct ones up to the protected
 * budget, the latest exchange, pending calls), where it stops (as soon as the request is under
 * its compaction target) and that the same view always gives the same request.
 */

type Completed = Extract<ForgeEvent, { type: 'context.compaction.completed' }>;

const instructions = 'You are a test agent.';

function readTurn(id: string, path: string, content: string): Message[] {
  return [
    { role: 'user', content: `Read ${path}.` },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path } }] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'read_file',
          output: { type: 'text', value: content },
          metadata: { path, sha256: sha256Hex(content), bytes: content.length, complete: true },
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: `Read ${path}.` }] },
  ];
}

function commandTurn(id: string, argv: readonly string[], output: string): Message[] {
  return [
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: id, toolName: 'run_command', input: { argv: [...argv] } }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'run_command',
          output: { type: 'text', value: output },
          metadata: { argv: [...argv], exitCode: 0 },
        },
      ],
    },
  ];
}

/** A file body of about `tokens` tokens by the scripted model's estimator (four characters a token). */
function body(seed: string, tokens: number): string {
  const line = `// ${seed} `.padEnd(39, '.');
  return `${line}\n`.repeat(Math.ceil((tokens * 4) / 40));
}

/** The fit and preflight phases of step 1, as the run loop calls them. */
async function firstStep(context: RunContext, input: StepInput, cache: PromptCacheObservation = {}) {
  const pending = { step: 1, input, signal: new AbortController().signal, cache };
  const fitted = await fitRequest(context, pending);
  return fitted.kind === 'stop' ? fitted : preflightStep(context, 1, fitted);
}

async function prepared(input: {
  readonly model: ScriptedModel;
  readonly policy: ContextPolicy;
  readonly history: readonly Message[];
  readonly step: StepInput;
  readonly projected?: readonly string[];
}) {
  const events: ForgeEvent[] = [];
  const context = new RunContext({
    model: input.model,
    policy: input.policy,
    instructionsHash: 'h',
    emit: (event) => events.push(event),
    history: input.history,
    ...(input.projected === undefined ? {} : { projected: input.projected }),
  });
  const result = await firstStep(context, input.step);
  if (result.kind !== 'send') throw new Error(`expected a request to send, got ${result.kind}`);
  const projections = events.filter(
    (event): event is Completed =>
      event.type === 'context.compaction.completed' && event.strategy === 'tool-output-projection',
  );
  return { request: result.request, budget: result.budget, projection: projections[0], projections, context };
}

const currentRequest: UserMessage = { role: 'user', content: 'Go on with the next file.' };

describe('projection in a 128k-window session of distinct large reads', () => {
  // The scripted model's default window: 128,000 tokens, 119,808 of them for input (the 8,192-token buffer reserved), target 59,904.
  const model = () => new ScriptedModel([]);
  const policy = resolveContextPolicy({ mode: 'compact' });
  const history = Array.from({ length: 11 }, (_, index) =>
    readTurn(`r${index + 1}`, `src/file-${index + 1}.ts`, body(`file ${index + 1}`, 9_000)),
  ).flat();
  const latest = readTurn('r12', 'src/file-12.ts', body('file 12', 9_000)).slice(1, 3);
  const step: StepInput = { instructions, currentRequest, continuation: latest, tools: [] };

  it('projects the oldest reads only until the request is under its target, and keeps at least 60 % of the target verbatim', async () => {
    const { request, budget, projection } = await prepared({ model: model(), policy, history, step });
    expect(budget?.compactTargetTokens).toBe(59_904);
    expect(projection).toBeDefined();
    const ids = projection?.projectedToolCallIds ?? [];
    expect(ids).toEqual(ids.map((_, index) => `r${index + 1}`));
    expect(ids.length).toBeLessThan(11);
    expect(projection?.tokensAfter).toBeLessThanOrEqual(59_904);
    expect(projection?.keptVerbatimTokens).toBeGreaterThanOrEqual(Math.ceil(0.6 * 59_904));
    // The newest reads arrive whole.
    const sent = [...request.history, ...request.continuation].flatMap((message) =>
      message.role === 'tool' ? message.content : [],
    );
    expect(
      sent
        .filter((part) => (part.output.value as string).startsWith('[tool output projected:'))
        .map((part) => part.toolCallId),
    ).toEqual(ids);
    expect(sent.at(-1)?.output.value).toBe(latest[1]?.role === 'tool' ? latest[1].content[0]?.output.value : undefined);
  });

  it('takes a superseded read first, even when it is newer than the other reads', async () => {
    // File 9 read again with new content: the first read of it (r9) is out of date.
    const again = readTurn('r9b', 'src/file-9.ts', body('file 9, edited', 9_000));
    const { projection } = await prepared({ model: model(), policy, history: [...history, ...again], step });
    expect(projection?.projectedToolCallIds?.[0]).toBe('r9');
    expect(projection?.projectedToolCallIds?.slice(1)).toEqual(
      (projection?.projectedToolCallIds ?? []).slice(1).map((_, index) => `r${index + 1}`),
    );
  });

  it('sends what an earlier run projected projected from the first step, and projects nothing more while under the threshold', async () => {
    const first = await prepared({ model: model(), policy, history, step });
    const ids = first.projection?.projectedToolCallIds ?? [];
    const next = await prepared({
      model: model(),
      policy,
      history: [...history, ...latest, { role: 'assistant', content: [{ type: 'text', text: 'Read it.' }] }],
      step: { ...step, continuation: [] },
      projected: ids,
    });
    expect(next.projections).toEqual([]);
    expect(next.request.history.slice(0, history.length)).toEqual(first.request.history);
  });
});

describe('the priced gate of a projection past the threshold', () => {
  // OpenAI-like prices: a cached input token costs a tenth of a fresh one.
  const priced = () =>
    new ScriptedModel([], {
      capabilities: {
        prices: {
          currency: 'USD',
          inputPerMillion: 1.25,
          cachedInputPerMillion: 0.125,
          outputPerMillion: 10,
          source: 'config',
        },
        promptCache: OPENAI_PROMPT_CACHE,
      },
    });
  const policy = resolveContextPolicy({ mode: 'compact' });
  const reads = (count: number) =>
    Array.from({ length: count }, (_, index) =>
      readTurn(`r${index + 1}`, `src/file-${index + 1}.ts`, body(`file ${index + 1}`, 9_000)),
    ).flat();
  const latest = readTurn('r99', 'src/latest.ts', body('latest', 9_000)).slice(1, 3);
  const step: StepInput = { instructions, currentRequest, continuation: latest, tools: [] };

  async function prepare(
    history: readonly Message[],
    cache: { readonly readTokens?: number; readonly idleMs?: number },
  ) {
    const events: ForgeEvent[] = [];
    const context = new RunContext({
      model: priced(),
      policy,
      instructionsHash: 'h',
      emit: (event) => events.push(event),
      history,
    });
    const result = await firstStep(context, step, cache);
    return { result, events };
  }

  it('keeps a warm cached request whole while it still fits, and says why', async () => {
    // Eleven reads and the latest: past the 85 % threshold, still inside the window.
    const { result, events } = await prepare(reads(11), { readTokens: 100_000, idleMs: 1_000 });
    expect(result.kind).toBe('send');
    expect(events.some((event) => event.type === 'context.compaction.completed')).toBe(false);
    const skipped = events.find(
      (event) => event.type === 'context.compaction.skipped' && event.strategy === 'tool-output-projection',
    );
    expect(skipped).toMatchObject({ reason: 'cost_gate', trigger: 'threshold' });
    if (result.kind === 'send') expect(JSON.stringify(result.request.history)).not.toContain('[tool output projected:');
  });

  it('projects once the cache is cold, and always when the request would not fit', async () => {
    const cold = await prepare(reads(11), { readTokens: 100_000, idleMs: 10 * 60_000 });
    expect(
      cold.events.some(
        (event) => event.type === 'context.compaction.completed' && event.strategy === 'tool-output-projection',
      ),
    ).toBe(true);
    const over = await prepare(reads(13), { readTokens: 110_000, idleMs: 1_000 });
    const projection = over.events.find(
      (event) => event.type === 'context.compaction.completed' && event.strategy === 'tool-output-projection',
    );
    expect(projection).toMatchObject({ trigger: 'over_budget' });
  });
});

describe('projection order (property)', () => {
  const window = { capabilities: { contextWindowTokens: 20_000, maxOutputTokens: 500 } };
  const policy = resolveContextPolicy({
    mode: 'compact',
    bufferTokens: 500,
    reservedOutputTokens: 500,
    protectedToolOutputRatio: 0.25,
  });

  type Exchange =
    | { readonly kind: 'read'; readonly path: string; readonly version: number; readonly tokens: number }
    | { readonly kind: 'command'; readonly argv: readonly string[]; readonly tokens: number };
  /** One older exchange: a read of one of three files (some content version), or one of two commands. */
  const exchange: fc.Arbitrary<Exchange> = fc.oneof(
    fc.record({
      kind: fc.constant('read' as const),
      path: fc.constantFrom('a.ts', 'b.ts', 'c.ts'),
      version: fc.integer({ min: 0, max: 2 }),
      tokens: fc.integer({ min: 600, max: 3_000 }),
    }),
    fc.record({
      kind: fc.constant('command' as const),
      argv: fc.constantFrom(['npm', 'test'], ['npm', 'run', 'lint']),
      tokens: fc.integer({ min: 600, max: 3_000 }),
    }),
  );
  const sessionArbitrary = fc.record({
    exchanges: fc.array(exchange, { minLength: 3, maxLength: 16 }),
    pendingLast: fc.boolean(),
  });

  function session(input: { readonly exchanges: readonly Exchange[]; readonly pendingLast: boolean }) {
    const history: Message[] = [];
    const superseded = new Set<string>();
    input.exchanges.forEach((item, index) => {
      const id = `t${index}`;
      const later = input.exchanges.slice(index + 1);
      if (item.kind === 'read') {
        history.push(...readTurn(id, item.path, body(`${item.path} v${item.version} #${index}`, item.tokens)));
        // Every read is whole, so any later read of the same file replaces it.
        if (later.some((other) => other.kind === 'read' && other.path === item.path)) superseded.add(id);
      } else {
        history.push(...commandTurn(id, item.argv, body(`${item.argv.join(' ')} #${index}`, item.tokens)));
        if (later.some((other) => other.kind === 'command' && other.argv.join(' ') === item.argv.join(' ')))
          superseded.add(id);
      }
    });
    const lastCall: Message = {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'last', toolName: 'read_file', input: { path: 'd.ts' } }],
    };
    const lastResult = readTurn('last', 'd.ts', body('d', 2_500))[2] as Message;
    const continuation = input.pendingLast ? [lastCall] : [lastCall, lastResult];
    return { history, superseded, step: { instructions, currentRequest, continuation, tools: [] } satisfies StepInput };
  }

  it('never projects the latest exchange or a pending call, takes superseded outputs first and each kind oldest first, stops once under target, and is deterministic', async () => {
    let projectedRuns = 0;
    let supersededRuns = 0;
    await fc.assert(
      fc.asyncProperty(sessionArbitrary, async (input) => {
        const { history, superseded, step } = session(input);
        const model = new ScriptedModel([], window);
        const { request, budget, projection } = await prepared({ model, policy, history, step });
        const target = budget?.compactTargetTokens ?? 0;
        if (projection === undefined) return;
        const ids = projection.projectedToolCallIds ?? [];
        projectedRuns += 1;
        if (ids.some((id) => superseded.has(id))) supersededRuns += 1;
        // Never the latest exchange (this run's last call and its result) nor a call still waiting for a result.
        const view = [...history, currentRequest, ...step.continuation];
        const lastGroup = splitIntoGroups(view).at(-1);
        const untouchable = view
          .slice(lastGroup?.start ?? view.length)
          .flatMap((message) =>
            message.role === 'tool' || message.role === 'assistant'
              ? message.content.map((part) => ('toolCallId' in part ? part.toolCallId : ''))
              : [],
          );
        expect(ids.some((id) => untouchable.includes(id) || id === 'last')).toBe(false);
        // Superseded first; within each kind, oldest first (ids are t<index>).
        const firstPlain = ids.findIndex((id) => !superseded.has(id));
        if (firstPlain >= 0) expect(ids.slice(firstPlain).some((id) => superseded.has(id))).toBe(false);
        const order = (list: readonly string[]) => list.map((id) => Number(id.slice(1)));
        for (const group of [ids.filter((id) => superseded.has(id)), ids.filter((id) => !superseded.has(id))])
          expect(order(group)).toEqual([...order(group)].sort((left, right) => left - right));
        // Stops as soon as under target: without its last pick the request would still be above it.
        expect(projection.tokensAfter).toBe(budget?.estimate.tokens);
        const fewer = new RunContext({
          model,
          policy,
          instructionsHash: 'h',
          emit: () => {},
          history,
          projected: ids.slice(0, -1),
        }).build(step);
        if (projection.tokensAfter <= target)
          expect((await model.estimateRequestTokens(fewer)).tokens).toBeGreaterThan(target);
        // The same view gives the same request, byte for byte.
        const again = await prepared({
          model: new ScriptedModel([], window),
          policy,
          history: structuredClone(history),
          step: structuredClone(step),
        });
        expect(again.projection?.projectedToolCallIds).toEqual(ids);
        expect(JSON.stringify(again.request)).toBe(JSON.stringify(request));
      }),
      { numRuns: 60 },
    );
    // The property is not vacuous: most generated sessions pass the threshold, and many hold superseded outputs.
    expect(projectedRuns).toBeGreaterThan(20);
    expect(supersededRuns).toBeGreaterThan(5);
  });
});

describe('after a compaction', () => {
  const window = { capabilities: { contextWindowTokens: 20_000, maxOutputTokens: 500 } };
  const policy = resolveContextPolicy({
    mode: 'compact',
    bufferTokens: 500,
    reservedOutputTokens: 500,
    protectedToolOutputRatio: 0.5,
  });

  it('the tail the compaction kept is not then projected, and its event says what was kept verbatim, as the run measured it', async () => {
    // 15k tokens of conversation that projection cannot shrink, then two reads within the protected budget (4,875 tokens).
    const chat: Message[] = Array.from({ length: 30 }, (_, index): Message =>
      index % 2 === 0
        ? { role: 'user', content: body(`question ${index}`, 500) }
        : { role: 'assistant', content: [{ type: 'text', text: body(`answer ${index}`, 500) }] },
    );
    const reads = [...readTurn('r1', 'a.ts', body('a', 2_000)), ...readTurn('r2', 'b.ts', body('b', 2_000))];
    const history = [...chat, ...reads];
    const events: ForgeEvent[] = [];
    const manager: ContextManager = {
      async fit(request) {
        const kept = request.request.history.slice(-reads.length);
        request.emit({
          type: 'context.compaction.completed',
          step: request.step,
          trigger: 'threshold',
          strategy: 'forge-state',
          mode: 'compact',
          installed: true,
          reused: false,
          tokensBefore: request.budget.estimate.tokens,
          tokensAfter: 0,
          reclaimedTokens: 0,
        });
        return {
          kind: 'compacted',
          checkpoint: '[SESSION_CHECKPOINT v1]\n- earlier turns',
          checkpointId: 'cp_1',
          coveredThrough: history.length - kept.length,
          history: kept,
          sourceHash: 'a'.repeat(64),
        };
      },
    };
    const steps = [{ toolCalls: [{ toolName: 'noop', input: {} }] }, { text: 'Done.' }];
    const model = new ScriptedModel(steps, window);
    const tool: Tool = {
      name: 'noop',
      description: 'Does nothing.',
      inputSchema: { type: 'object' },
      risk: 'read',
      execute: async () => ({ output: { type: 'text', value: 'ok' } }),
    };
    const result = await runAgent({
      model,
      instructions: createInstructionSnapshot(instructions),
      request: 'Go on.',
      session: { history: { messages: history }, contextManager: manager },
      tools: [tool],
      approvals: { check: async () => ({ kind: 'allow' }) },
      context: policy,
      onEvent: (envelope) => events.push(envelope.event),
    });
    expect(result.status).toBe('completed');
    const completed = events.filter((event): event is Completed => event.type === 'context.compaction.completed');
    // Both reads were protected, so projection had nothing to take; the compaction made the room.
    expect(completed.map((event) => event.strategy)).toEqual(['forge-state']);
    const kept = completed[0]?.keptVerbatimTokens ?? 0;
    expect(kept).toBeGreaterThan(4_000);
    // Every later step sends the kept reads whole.
    for (const request of model.requests) {
      const outputs = request.history.flatMap((message) =>
        message.role === 'tool' ? message.content.map((part) => String(part.output.value)) : [],
      );
      expect(outputs).toHaveLength(2);
      expect(outputs.every((value) => !value.startsWith('[tool output projected:'))).toBe(true);
    }
  });
});

describe('a request that does not fit', () => {
  it('projects the protected newest outputs too rather than stop, when nothing else can make it fit', async () => {
    // 19,500 tokens of input, a target of 9,750, 4,875 protected: the first read (4,800 tokens) is protected, the second (15,000) is the latest exchange.
    const model = new ScriptedModel(
      [
        { toolCalls: [{ toolName: 'sized', toolCallId: 'small', input: { tokens: 4_800 } }] },
        { toolCalls: [{ toolName: 'sized', toolCallId: 'large', input: { tokens: 15_000 } }] },
        { text: 'Done.' },
      ],
      { capabilities: { contextWindowTokens: 20_000, maxOutputTokens: 500 } },
    );
    const sized: Tool = {
      name: 'sized',
      description: 'Returns that many tokens.',
      inputSchema: { type: 'object' },
      risk: 'read',
      execute: async (input) => ({
        output: { type: 'text', value: body('output', Number((input as { tokens: number }).tokens)) },
      }),
    };
    const events: ForgeEvent[] = [];
    const unchanged: ContextManager = { fit: async () => ({ kind: 'unchanged' }) };
    const result = await runAgent({
      model,
      instructions: createInstructionSnapshot(instructions),
      request: 'Read both.',
      tools: [sized],
      approvals: { check: async () => ({ kind: 'allow' }) },
      context: resolveContextPolicy({
        mode: 'compact',
        bufferTokens: 500,
        reservedOutputTokens: 500,
        protectedToolOutputRatio: 0.5,
      }),
      onEvent: (envelope) => events.push(envelope.event),
      session: { contextManager: unchanged },
    });
    expect(result.status).toBe('completed');
    expect(events.some((event) => event.type === 'context.limit_reached')).toBe(false);
    const projections = events.filter((event): event is Completed => event.type === 'context.compaction.completed');
    expect(projections.flatMap((event) => event.projectedToolCallIds ?? [])).toEqual(['small']);
  });
});
