import { existsSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup } from './support/bundle.js';
import { poll } from './support/processes.js';

/* The smaller defects of issue 30, each through the bundled binary. */

const fixture = useBundle('bundle-reliability-smaller');

describe('smaller reliability points through the bundled forge', () => {
  it('an AGENTS.md linking out of the workspace is warned about once', async () => {
    const user = await userSetup(fixture, 'agents-once');
    await symlink('/etc/passwd', path.join(user.workspace, 'AGENTS.md'));
    const script = await user.writeModelScript([{ text: 'hi' }]);
    const run = await user.forge(['run', '--model', 'scripted:file', 'hi'], script);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n').filter((line) => line.includes('AGENTS.md is a symbolic link'))).toHaveLength(1);
  });
});

describe('a command cancelled through the bundled forge', () => {
  it('is stored with the note that what it started may still be running', async () => {
    const user = await userSetup(fixture, 'cancelled-note');
    const script = await user.writeModelScript([
      {
        toolCalls: [{ toolName: 'run_command', input: { argv: ['sh', '-c', 'echo started > started.txt; sleep 30'] } }],
      },
      { text: 'never reached' },
    ]);
    const forge = user.start(['run', '--model', 'scripted:file', '--approval', 'workspace-auto', 'Sleep'], script);
    await poll(() => existsSync(path.join(user.workspace, 'started.txt')), 20_000, 'the command to start');
    forge.child.kill('SIGTERM');
    const ended = await forge.ended;
    expect(ended.code).toBe(143);
    const [result] = toolResultTexts((await user.session(sessionIdOf(ended.stderr))).messages);
    expect(result).toContain('may still be running');
  });
});
