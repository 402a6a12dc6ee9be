import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup } from './support/bundle.js';

/*
 * Secrets a command prints reach the session log redacted: the environment dump of issue 30
 * (`PGPASSWORD`, a Redis URL with an empty user) and the credential shapes an outside tester
 * found stored in clear, printed by a command the scripted model runs through the bundled binary
 * (without the sandbox, which would not pass the variables to the command at all).
 */

const fixture = useBundle('bundle-redaction');

const pgPassword = 'pg8Hq2LmZx4Tn7Wv';
const redisPassword = 'rd5Kp9QeYt3Bs6Nc';
const shapes = [
  ['Authorization: Basic ', Buffer.from('admin:bA7sIcPw9QxZ2m').toString('base64')],
  ['deployctl push --token ', 'tk_4Gh8Jk2Lm6Np0Qr3St7Uv'],
  ['curl -u admin:', 'cU9rLpW3xZ7kQ2mV'],
  ['DB_PASS= ', 'dB4sPq8Wm2Xz6Kt1'],
  ['<password>', 'xM3lPw7Qz1Rt5Yb9', '</password>'],
  ['PASSWORD:', 'cP6nWq2Lz8Xt4Mv0'],
  ['amqp://guest:', 'aM9qPz3Lw7Xk1Rt5', '@mq.internal:5672'],
] as const;

describe('redaction of what commands print, through the bundled forge', () => {
  it('env with PGPASSWORD and a Redis URL, and every new shape, are stored redacted', async () => {
    const user = await userSetup(fixture, 'redaction');
    const printed = shapes.map(([prefix, secret, suffix = '']) => `${prefix}${secret}${suffix}`).join('\n');
    const script = await user.writeModelScript([
      {
        toolCalls: [
          { toolName: 'run_command', input: { argv: ['env'] } },
          { toolName: 'run_command', input: { argv: ['printf', '%s\\n', printed] } },
        ],
      },
      { text: 'done' },
    ]);
    const run = await user.forge(
      ['run', '--model', 'scripted:file', '--approval', 'workspace-auto', '--sandbox', 'off', 'Show env'],
      {
        ...script,
        PGPASSWORD: pgPassword,
        REDIS_URL: `redis://:${redisPassword}@cache.internal:6379/0`,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const sessionId = sessionIdOf(run.stderr);
    const results = toolResultTexts((await user.session(sessionId)).messages);
    expect(results.join('\n')).toContain('REDIS_URL=redis://:[REDACTED:url-password]@cache.internal:6379/0');
    expect(results.join('\n')).toContain('PASSWORD:[REDACTED');

    const stored = [path.join(user.forgeHome, 'sessions', sessionId, 'session.jsonl')];
    for (const name of await readdir(path.join(user.forgeHome, 'runs')))
      stored.push(path.join(user.forgeHome, 'runs', name));
    const text = (await Promise.all(stored.map((file) => readFile(file, 'utf8')))).join('\n');
    for (const secret of [pgPassword, redisPassword, ...shapes.map((shape) => shape[1])])
      expect(text, `${secret} stored in clear`).not.toContain(secret);
  });
});
