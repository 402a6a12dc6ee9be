import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup } from './support/bundle.js';
import { poll } from './support/processes.js';

/*
 * A model-chosen regular expression with exponential backtracking, through the built binary: the
 * search runs in a worker thread (its code travels inside the bundle), stops at its time bound
 * with a note the model can act on, and Ctrl-C cancels the run while the pattern runs.
 */

const fixture = useBundle('bundle-search');
const catastrophic = { toolName: 'search', input: { pattern: '(a+)+$', regex: true } };

describe('the bundled forge with a catastrophic search pattern', () => {
  it('stops the search at its time bound, tells the model, and finishes the run', async () => {
    const user = await userSetup(fixture, 'search-bound');
    await writeFile(path.join(user.workspace, 'a.txt'), 'aaa\n');
    await writeFile(path.join(user.workspace, 'b.txt'), `${'a'.repeat(40)}b\n`);
    const script = await user.writeModelScript([
      { toolCalls: [catastrophic] },
      { text: 'The pattern was too costly.' },
    ]);

    const started = Date.now();
    const run = await user.forge(['run', '--model', 'scripted:file', 'Search'], script);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The pattern was too costly.');
    const [result] = toolResultTexts((await user.session(sessionIdOf(run.stderr))).messages);
    expect(result).toMatch(
      /^a\.txt:1: aaa\n\[search: stopped after 5000 ms of matching, the time bound of a regular-expression search: 1 of 2 files were searched\./,
    );
  }, 60_000);

  it('runs an ordinary regular expression and exits: the worker kept for the next search does not hold the process', async () => {
    const user = await userSetup(fixture, 'search-ordinary');
    await writeFile(path.join(user.workspace, 'a.txt'), 'price: $10\nfoofoo\n');
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'search', input: { pattern: '(?<=\\$)\\d+', regex: true } }] },
      { toolCalls: [{ toolName: 'search', input: { pattern: '^(\\w+)\\1$', regex: true } }] },
      { text: 'Found both.' },
    ]);
    const run = await user.forge(['run', '--model', 'scripted:file', 'Search'], script);
    expect(run.code).toBe(0);
    expect(toolResultTexts((await user.session(sessionIdOf(run.stderr))).messages)).toEqual([
      'a.txt:1: price: $10',
      'a.txt:2: foofoo',
    ]);
  });

  it('Ctrl-C cancels the run while the pattern runs', async () => {
    const user = await userSetup(fixture, 'search-cancel');
    await writeFile(path.join(user.workspace, 'b.txt'), `${'a'.repeat(40)}b\n`);
    const script = await user.writeModelScript([{ toolCalls: [catastrophic] }, { text: 'never reached' }]);
    const forge = user.start(['run', '--model', 'scripted:file', 'Search'], script);
    await poll(() => forge.output.stderr.includes('search'), 20_000, 'the search to start');

    const sent = Date.now();
    forge.child.kill('SIGINT');
    const ended = await forge.ended;
    // The pattern would run for ages on 40 characters: the run ended without waiting for it.
    expect(Date.now() - sent).toBeLessThan(10_000);
    expect(ended.code).toBe(130);
    expect(ended.stderr).toContain('forge: cancelled\n');
  }, 60_000);
});
