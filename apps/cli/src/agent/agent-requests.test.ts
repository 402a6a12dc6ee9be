import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONTEXT_MODES, type ContextMode, type ModelRequest } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { expandFixture, parseFixture, runFixture, selectModes } from '@forge/evals';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestIo, temporaryDirectory } from '../test-support/cli-harness.js';
import { main } from '../main.js';

/*
 * The eval harness must measure the agent the CLI ships. For every context mode this runs a
 * conversation of two turns through `forge run` (the second with `--last`) and through the eval
 * harness, each with a model that records what it was sent, and compares the whole body of each
 * turn's first request: instructions, history, current request, tool definitions. The first turn opens a new, small session; the
 * first request is large enough that the second turn's session is past the point where modes
 * shadow and compact start offering the context tools, so both decisions are compared. It fails as
 * soon as either side sends a byte the other does not.
 */

const AGENTS = 'Project notes: run the tests with pnpm test.\n';
// About 65k tokens by the scripted estimator: past half of the 128k window's available input, below the compaction threshold.
const LARGE_REQUEST = `Here is the log to keep in mind:\n${'worker pool restarted after a timeout. '.repeat(6_600).trimEnd()}`;
const REQUEST = 'Say hello.';

/** The eval mode that runs a turn the way the CLI does in `mode`. */
const EVAL_MODE: Record<ContextMode, string> = {
  off: 'off',
  warn: 'warn',
  shadow: 'shadow',
  compact: 'compact:forge-state',
};

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeAll(async () => {
  workspace = await temporaryDirectory('forge-parity-');
  await writeFile(path.join(workspace.path, 'AGENTS.md'), AGENTS);
});

afterAll(async () => {
  await workspace.remove();
});

/** A request as the provider adapter would encode it: the whole `ModelRequest`, serialized. */
interface Offered {
  readonly tools: ModelRequest['tools'];
  readonly instructions: string;
  readonly body: string;
}

function offered(request: ModelRequest | undefined): Offered {
  if (request === undefined) throw new Error('the model was never called');
  return { tools: request.tools, instructions: request.instructions, body: JSON.stringify(request) };
}

/**
 * A fixture caps each reply (`model.maxOutputTokens`, 2000 by default), which `forge run` leaves
 * to the model: the one field the harness adds, checked and then set aside.
 */
function withoutFixtureOutputCap(request: ModelRequest | undefined): ModelRequest | undefined {
  if (request === undefined) return undefined;
  expect(request.maxOutputTokens).toBe(2000);
  const { maxOutputTokens: _cap, ...rest } = request;
  return rest;
}

async function cliOffers(mode: ContextMode): Promise<Offered[]> {
  const home = await temporaryDirectory('forge-parity-home-');
  try {
    const offers: Offered[] = [];
    for (const [index, request] of [LARGE_REQUEST, REQUEST].entries()) {
      const model = new ScriptedModel([{ text: 'Hello.' }]);
      const test = createTestIo({ cwd: workspace.path, env: { FORGE_HOME: home.path }, models: { main: model } });
      test.stdin.end();
      const code = await main(
        [
          'node',
          'forge',
          'run',
          ...(index === 0 ? [] : ['--last']),
          '--model',
          'test:main',
          '--context-mode',
          mode,
          request,
        ],
        test.io,
      );
      expect(test.stderr.text).not.toContain('error');
      expect(code).toBe(0);
      offers.push(offered(model.requests[0]));
    }
    return offers;
  } finally {
    await home.remove();
  }
}

async function evalOffers(mode: ContextMode): Promise<Offered[]> {
  const fixture = expandFixture(
    parseFixture(
      {
        formatVersion: 1,
        id: 'parity',
        title: 'Parity',
        model: { contextWindowTokens: 128_000 },
        instructions: AGENTS,
        turns: [{ user: LARGE_REQUEST }, { user: REQUEST }],
      },
      'parity',
    ),
  );
  const [runner] = selectModes([EVAL_MODE[mode]]);
  if (runner === undefined) throw new Error(`no eval mode for ${mode}`);
  const model = new ScriptedModel([{ text: 'Hello.' }, { text: 'Hello.' }]);
  const run = await runFixture({ fixture, mode: runner, model });
  expect(run.turns.map((turn) => turn.status)).toEqual(['completed', 'completed']);
  return [offered(withoutFixtureOutputCap(model.requests[0])), offered(withoutFixtureOutputCap(model.requests[1]))];
}

describe('the CLI and the eval harness send the same requests', () => {
  it.each(CONTEXT_MODES)(
    'in mode %s: byte-identical request bodies, in a small session and past the context-tool threshold',
    async (mode) => {
      const cli = await cliOffers(mode);
      const harness = await evalOffers(mode);
      expect(harness.map((offer) => offer.body)).toEqual(cli.map((offer) => offer.body));

      const [small, large] = cli;
      if (small === undefined || large === undefined) throw new Error('two turns expected');
      const automatic = mode === 'shadow' || mode === 'compact';
      for (const [turn, offersContextTools] of [
        [small, false],
        [large, automatic],
      ] as const) {
        const names = turn.tools.map((tool) => tool.name);
        expect(names.slice(0, 5)).toEqual(['list_files', 'read_file', 'search', 'edit_file', 'run_command']);
        expect(names.slice(5)).toEqual(offersContextTools ? ['checkpoint_note', 'request_compaction'] : []);
        expect(turn.instructions.includes('checkpoint_note: record what must survive')).toBe(offersContextTools);
        expect(turn.instructions).toContain(AGENTS.trim());
      }
      // A small session is sent exactly what mode warn sends: the plain tools and system prompt.
      if (automatic) expect(small.body).toEqual((await cliOffers('warn'))[0]?.body);
    },
  );
});
