import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONTEXT_MODES, type ContextMode, type ModelRequest } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { expandFixture, parseFixture, runFixture, selectModes } from '@forge/evals';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestIo, temporaryDirectory } from '../test-support/cli-harness.js';
import { main } from '../main.js';

/*
 * The eval harness must measure the agent the CLI ships. For every context mode this runs one
 * turn through `forge run` and one through the eval harness, each with a model that records what
 * it was sent, and compares the tool definitions and the instructions of the first request. It
 * fails as soon as either side offers a tool, a description, a schema or a prompt the other does not.
 */

const AGENTS = 'Project notes: run the tests with pnpm test.\n';
const REQUEST = 'Say hello.';

/** The eval mode that runs a turn the way the CLI does in `mode`. */
const EVAL_MODE: Record<ContextMode, string> = { off: 'off', warn: 'warn', shadow: 'shadow', compact: 'compact:forge-state' };

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeAll(async () => {
  workspace = await temporaryDirectory('forge-parity-');
  forgeHome = await temporaryDirectory('forge-parity-home-');
  await writeFile(path.join(workspace.path, 'AGENTS.md'), AGENTS);
});

afterAll(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

interface Offered {
  readonly tools: ModelRequest['tools'];
  readonly instructions: string;
}

function offered(request: ModelRequest | undefined, root: string): Offered {
  if (request === undefined) throw new Error('the model was never called');
  return { tools: request.tools, instructions: request.instructions.split(root).join('<workspace>') };
}

async function cliOffers(mode: ContextMode): Promise<Offered> {
  const model = new ScriptedModel([{ text: 'Hello.' }]);
  const test = createTestIo({ cwd: workspace.path, env: { FORGE_HOME: forgeHome.path }, models: { main: model } });
  test.stdin.end();
  const code = await main(['node', 'forge', 'run', '--model', 'test:main', '--context-mode', mode, REQUEST], test.io);
  expect(test.stderr.text).not.toContain('error');
  expect(code).toBe(0);
  return offered(model.requests[0], workspace.path);
}

async function evalOffers(mode: ContextMode): Promise<Offered> {
  const fixture = expandFixture(parseFixture({ formatVersion: 1, id: 'parity', title: 'Parity', model: { contextWindowTokens: 128_000 }, instructions: AGENTS, turns: [{ user: REQUEST }] }, 'parity'));
  const [runner] = selectModes([EVAL_MODE[mode]]);
  if (runner === undefined) throw new Error(`no eval mode for ${mode}`);
  const model = new ScriptedModel([{ text: 'Hello.' }]);
  let root = '';
  const run = await runFixture({
    fixture,
    mode: runner,
    model,
    onWorkspace: (directory) => {
      root = directory;
    },
  });
  expect(run.turns[0]?.status).toBe('completed');
  return offered(model.requests[0], root);
}

describe('the CLI and the eval harness offer the same agent', () => {
  it.each(CONTEXT_MODES)('in mode %s: identical tool definitions and instructions', async (mode) => {
    const cli = await cliOffers(mode);
    const harness = await evalOffers(mode);
    expect(harness.tools).toEqual(cli.tools);
    expect(harness.instructions).toBe(cli.instructions);

    const names = cli.tools.map((tool) => tool.name);
    expect(names.slice(0, 5)).toEqual(['list_files', 'read_file', 'search', 'edit_file', 'run_command']);
    const automatic = mode === 'shadow' || mode === 'compact';
    expect(names.slice(5)).toEqual(automatic ? ['checkpoint_note', 'request_compaction'] : []);
    expect(cli.instructions.includes('checkpoint_note: record what must survive')).toBe(automatic);
    expect(cli.instructions).toContain(AGENTS.trim());
  });
});
