// Measures what Forge sends Codex over a 10-turn session, on the real @openai/codex binary against
// a loopback Responses server (127.0.0.1; nothing leaves the machine): the v1 engine (a new
// thread per turn, fed Forge's active-view wrapper of instructions and history) versus the v2
// engine (one App Server thread per session: instructions once as developer instructions, then
// only each new request). Forge's figures are its conservative estimate of the text it sent
// (the `codex.context.budgeted` event); the model-side figures are the bytes of each request body the
// provider received divided by 4, which include Codex's own prompt, tools and, on a persistent
// thread, the history Codex replays (cacheable by the provider). A measurement, not a test.
// Usage: npx tsx --conditions=@forge/source scripts/bench-codex-thread.ts [turns]
import { createInstructionSnapshot, type Message } from '@forge/core';
import { runCodexTurn, type CodexEventEnvelope } from '@forge/codex';
import { startCodexHarness, type CodexHarness } from '@forge/codex/test-helpers/codex-harness';
import { assistantMessage } from '@forge/codex/test-helpers/loopback-responses';

const TURNS = Number(process.argv[2] ?? 10);

const instructions = createInstructionSnapshot(
  [
    'This conversation is a Forge session run on the Codex engine. Work in small verified steps.',
    '# AGENTS.md',
    ...Array.from(
      { length: 24 },
      (_, index) => `- Project rule ${index + 1}: keep modules small, test every change, and name files in kebab-case.`,
    ),
  ].join('\n'),
);

function request(turn: number): string {
  return `Turn ${turn + 1}: change module-${turn}.ts so that its parser accepts trailing commas; keep the public API unchanged and add a test.`;
}

function answer(turn: number): string {
  return `Done with turn ${turn + 1}. ${'I read module-' + turn + '.ts, changed the tokenizer to skip a trailing comma before a closing bracket, and added two tests. '.repeat(8)}`;
}

interface TurnFigures {
  readonly forgeTokens: number;
  readonly requestBodyTokens: number;
}

function sentTokens(events: readonly CodexEventEnvelope[]): number {
  const budgeted = events.find((envelope) => envelope.event.type === 'codex.context.budgeted')?.event;
  return budgeted?.type === 'codex.context.budgeted' ? budgeted.estimate.tokens : 0;
}

async function session(mode: 'v1' | 'v2'): Promise<TurnFigures[]> {
  const harness: CodexHarness = await startCodexHarness({
    steps: Array.from({ length: TURNS }, (_, turn) => ({ items: [assistantMessage(answer(turn))] })),
  });
  try {
    const figures: TurnFigures[] = [];
    const history: Message[] = [];
    let threadId: string | undefined;
    for (let turn = 0; turn < TURNS; turn += 1) {
      const events: CodexEventEnvelope[] = [];
      const before = harness.provider.requests.length;
      const result = await runCodexTurn({
        server: harness.server,
        ...(mode === 'v1'
          ? {
              thread: { cwd: harness.workspace },
              input: 'wrapper' as const,
              view: { instructions, history: [...history] },
            }
          : {
              thread: threadId === undefined ? { cwd: harness.workspace } : { threadId },
              view: { instructions, history: [] },
            }),
        request: request(turn),
        onEvent: (envelope) => events.push(envelope),
      });
      if (result.status !== 'completed')
        throw new Error(`turn ${turn + 1} (${mode}) ended ${result.status}: ${result.error?.message ?? ''}`);
      threadId ??= result.codex.threadId;
      history.push(...result.messages);
      const bodies = harness.provider.requests
        .slice(before)
        .reduce((total, recorded) => total + Buffer.byteLength(JSON.stringify(recorded.body)), 0);
      figures.push({ forgeTokens: sentTokens(events), requestBodyTokens: Math.ceil(bodies / 4) });
    }
    return figures;
  } finally {
    await harness.dispose();
  }
}

const v1 = await session('v1');
const v2 = await session('v2');
const sum = (figures: readonly TurnFigures[], key: keyof TurnFigures): number =>
  figures.reduce((total, figure) => total + figure[key], 0);
const pad = (value: number | string, width = 10): string =>
  String(typeof value === 'number' ? value.toLocaleString('en-US') : value).padStart(width);

console.log(
  `Codex engine, ${TURNS} turns on the real codex binary (tokens; Forge = Forge's estimate of what it sent, model = request body bytes / 4)`,
);
console.log(`${'turn'.padEnd(6)}${pad('v1 Forge')}${pad('v2 Forge')}${pad('v1 model')}${pad('v2 model')}`);
for (let turn = 0; turn < TURNS; turn += 1) {
  console.log(
    `${String(turn + 1).padEnd(6)}${pad(v1[turn]?.forgeTokens ?? 0)}${pad(v2[turn]?.forgeTokens ?? 0)}${pad(v1[turn]?.requestBodyTokens ?? 0)}${pad(v2[turn]?.requestBodyTokens ?? 0)}`,
  );
}
const forgeV1 = sum(v1, 'forgeTokens');
const forgeV2 = sum(v2, 'forgeTokens');
console.log(
  `${'total'.padEnd(6)}${pad(forgeV1)}${pad(forgeV2)}${pad(sum(v1, 'requestBodyTokens'))}${pad(sum(v2, 'requestBodyTokens'))}`,
);
console.log(
  `Forge sends ${(forgeV1 / Math.max(1, forgeV2)).toFixed(2)}× fewer tokens with the persistent thread (v1 ${forgeV1.toLocaleString('en-US')} / v2 ${forgeV2.toLocaleString('en-US')}); last turn ${((v1.at(-1)?.forgeTokens ?? 0) / Math.max(1, v2.at(-1)?.forgeTokens ?? 1)).toFixed(1)}×`,
);
console.log(
  `model-side request bodies: v1 / v2 = ${(sum(v1, 'requestBodyTokens') / Math.max(1, sum(v2, 'requestBodyTokens'))).toFixed(2)} (v2 replays Codex's own history, which the provider can cache)`,
);
