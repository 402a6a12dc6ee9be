import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResultTexts, useBundle, userSetup } from './support/bundle.js';

/*
 * A `.gitignore` whose rules are slow to test (2,000 rules like `*a…a/**` + `/x*y*z`, 500 KB, under
 * the size cap) over 600 files whose names make each rule work hard: list_files gives the file up
 * at its time bound, says which file it gave up on, and returns within 2 s.
 */

const fixture = useBundle('bundle-gitignore-bound');

describe('the bundled forge with slow .gitignore rules', () => {
  it('list_files over 2,000 costly rules and 600 files returns within 2 s and names the rule file', async () => {
    const user = await userSetup(fixture, 'gitignore-bound');
    const rules = Array.from({ length: 2000 }, (_, index) => `*${'a'.repeat(236)}/**/x*y*z${index}`);
    await writeFile(path.join(user.workspace, '.gitignore'), `${rules.join('\n')}\n`);
    for (let directory = 0; directory < 20; directory += 1) {
      const name = path.join(user.workspace, `${'a'.repeat(235)}b${directory}`);
      await mkdir(name);
      for (let file = 0; file < 30; file += 1) await writeFile(path.join(name, `x${'y'.repeat(60)}${file}.txt`), '');
    }
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'list_files', input: { recursive: true, maxEntries: 1000 } }] },
      { text: 'Listed.' },
    ]);
    const run = await user.forge(['run', '--json', '--model', 'scripted:file', 'List everything'], script);
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { timestamp: string; sessionId?: string; event: { type: string } });
    const at = (type: string) => Date.parse(events.find((envelope) => envelope.event.type === type)?.timestamp ?? '');
    const took = at('tool.call.completed') - at('tool.call.started');
    console.log(`[gitignore-bound] list_files took ${took} ms`);
    expect(took).toBeLessThan(2_000);

    const [result] = toolResultTexts((await user.session(events[0]?.sessionId ?? '')).messages);
    expect(result).toMatch(
      /\[list_files: \.gitignore was not used(: compiling its 2000 rules took more than| for the rest of this walk: its rules took)/,
    );
    // Every file is listed: the rules given up exclude nothing from then on.
    expect(result?.split('\n').filter((line) => line.endsWith('.txt'))).toHaveLength(600);
  });
});
