import { execFileSync } from 'node:child_process';
import { link, mkdir, open, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPrivateBinary, spawnForge, type SpawnedForge } from '@forge/cli/bundle-testing';
import { reportCounts, RELIABILITY_SEED } from '../support/run-size.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/*
 * Issue 17, "Done when": a hostile workspace through the built, bundled `forge` binary, with the
 * model played by the loopback provider over real HTTP. The workspace has an `AGENTS.md` that links
 * to a file outside it, a FIFO, a 40 MB sparse, a 10 MB one-line and a /dev/zero `.gitignore`, a
 * FIFO, a /dev/zero and an oversized `.forge/config.json`, a hard link to an outside file and a
 * file name with a newline. Every run ends in bounded time with a clear message, and nothing from
 * outside the workspace reaches the provider, the session log or `sessions show`.
 */

const temporaryDirectory = useTemporaryDirectories();
/** The most one forge invocation may take before the suite calls it a hang; the machine may be loaded. */
const RUN_TIMEOUT_MS = 60_000;
const outsideMarker = `outside-credentials-marker-${RELIABILITY_SEED}`;
const linkedMarker = `outside-hard-linked-marker-${RELIABILITY_SEED}`;
const NEWLINE_NAME = 'two\nlines.txt';

let forge: ReturnType<typeof buildPrivateBinary>;
let provider: LoopbackProvider;
let base = '';
let workspace = '';
let home = '';
const runs: SpawnedForge[] = [];

function env(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    FORGE_HOME: home,
    HOME: join(base, 'home'),
    OPENAI_API_KEY: 'sk-loopback-test-key',
    OPENAI_BASE_URL: provider.baseURL,
  };
}

async function run(args: readonly string[]): Promise<SpawnedForge> {
  const outcome = await spawnForge(forge.bin, args, { cwd: workspace, env: env(), timeoutMs: RUN_TIMEOUT_MS });
  runs.push(outcome);
  return outcome;
}

/** An error result travels as `{"error": "…"}` in the Responses API; its text is what the model reads. */
function unwrapped(output: string): string {
  try {
    const value = JSON.parse(output) as { error?: unknown };
    return typeof value.error === 'string' ? value.error : output;
  } catch {
    return output;
  }
}

/** What each tool call returned, as the provider received it in the next request (Responses API items). */
function toolOutputs(requestIndex: number): Map<string, string> {
  const body = provider.requests[requestIndex]?.body as
    | { input?: { type?: string; call_id?: string; output?: unknown }[] }
    | undefined;
  const outputs = new Map<string, string>();
  for (const item of body?.input ?? []) {
    if (item.type === 'function_call_output' && typeof item.call_id === 'string')
      outputs.set(item.call_id, unwrapped(typeof item.output === 'string' ? item.output : JSON.stringify(item.output)));
  }
  return outputs;
}

beforeAll(async () => {
  forge = buildPrivateBinary('hostile-workspace');
  provider = await startLoopbackProvider();
  base = await temporaryDirectory('hostile-workspace');
  workspace = join(base, 'workspace');
  home = join(base, 'forge-home');
  await mkdir(join(base, 'outside'), { recursive: true });
  await mkdir(join(base, 'home'));
  await writeFile(join(base, 'outside', 'credentials'), `[default]\nnote = ${outsideMarker}\n`);
  await writeFile(join(base, 'outside', 'notes.txt'), `${linkedMarker}\n`);
  for (const directory of ['.git', '.forge', 'src', 'big', 'long', 'zero'])
    await mkdir(join(workspace, directory), { recursive: true });
  await writeFile(join(workspace, 'src', 'app.ts'), 'export const answer = 42;\n');
  await writeFile(join(workspace, NEWLINE_NAME), 'newline file content\n');
  await symlink(join(base, 'outside', 'credentials'), join(workspace, 'AGENTS.md'));
  await link(join(base, 'outside', 'notes.txt'), join(workspace, 'linked.txt'));
  execFileSync('mkfifo', [join(workspace, '.gitignore')]);
  const sparse = await open(join(workspace, 'big', '.gitignore'), 'w');
  await sparse.truncate(40 * 1024 * 1024);
  await sparse.close();
  await writeFile(join(workspace, 'long', '.gitignore'), `${'x'.repeat(10 * 1024 * 1024)}\n`);
  await symlink('/dev/zero', join(workspace, 'zero', '.gitignore'));
}, 120_000);

afterAll(async () => {
  forge?.remove();
  await provider?.close();
});

describe('a hostile workspace through the bundled forge', () => {
  it.each([
    ['a FIFO', async (file: string) => execFileSync('mkfifo', [file]), 'it is a FIFO, not a regular file'],
    [
      'a link to /dev/zero',
      (file: string) => symlink('/dev/zero', file),
      'it is a character device, not a regular file',
    ],
    [
      'a 2 MiB file',
      (file: string) => writeFile(file, `{"schemaVersion": 1${' '.repeat(2 * 1024 * 1024)}}`),
      'it is 2.0 MiB, more than the 1.0 MiB Forge reads of it',
    ],
  ])(
    'refuses %s as .forge/config.json at once, exit 2, before any request',
    async (_name, make, reason) => {
      const file = join(workspace, '.forge', 'config.json');
      await rm(file, { force: true });
      await make(file);
      const before = provider.requests.length;
      const outcome = await run(['run', '--model', 'openai:gpt-5', 'Say hello']);
      await rm(file);
      expect(outcome.timedOut).toBe(false);
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toMatch(/^forge: error: [^\n]*\n$/);
      expect(outcome.stderr).toContain(
        `forge: error: Invalid configuration in ${file}: cannot be used: ${reason}; a configuration file must be a regular JSON file`,
      );
      expect(provider.requests.length).toBe(before);
    },
    2 * RUN_TIMEOUT_MS,
  );

  it(
    'runs a turn that lists, searches and reads everything, sends nothing from outside, and says what it refused',
    async () => {
      const before = provider.requests.length;
      provider.enqueue(
        turn({
          toolCalls: [
            { name: 'list_files', arguments: { recursive: true }, callId: 'call_list' },
            { name: 'search', arguments: { pattern: 'marker' }, callId: 'call_search' },
            { name: 'read_file', arguments: { path: 'linked.txt' }, callId: 'call_linked' },
            { name: 'read_file', arguments: { path: 'AGENTS.md' }, callId: 'call_agents' },
            { name: 'read_file', arguments: { path: NEWLINE_NAME }, callId: 'call_newline' },
            { name: 'read_file', arguments: { path: 'long/.gitignore' }, callId: 'call_long_line' },
          ],
        }),
        turn({ text: 'Looked at everything.' }),
      );
      const outcome = await run(['run', '--model', 'openai:gpt-5', 'Look around the workspace.']);
      expect(outcome.timedOut).toBe(false);
      expect(outcome.stderr).not.toContain('forge: error');
      expect(outcome.code).toBe(0);
      expect(outcome.stdout).toContain('Looked at everything.');
      expect(outcome.stderr).toContain(
        `forge: warning: ${join(workspace, 'AGENTS.md')} is a symbolic link to ${join(base, 'outside', 'credentials')}, outside ${workspace}; it was not loaded as instructions.\n`,
      );

      const sent = provider.requests.slice(before);
      expect(sent).toHaveLength(2);
      const everything = JSON.stringify(sent.map((request) => request.body));
      expect(everything).not.toContain(outsideMarker);
      expect(everything).not.toContain(linkedMarker);

      const outputs = toolOutputs(before + 1);
      const listing = outputs.get('call_list') ?? '';
      expect(listing.split('\n')).toEqual(
        expect.arrayContaining([
          JSON.stringify(NEWLINE_NAME),
          'linked.txt',
          'AGENTS.md@',
          '[list_files: .gitignore was not used: .gitignore is a FIFO, not a regular file]',
          '[list_files: big/.gitignore was not used: big/.gitignore is 40.0 MiB, more than the 1.0 MiB Forge reads of it]',
          '[list_files: long/.gitignore was not used: long/.gitignore is 10.0 MiB, more than the 1.0 MiB Forge reads of it]',
          '[list_files: zero/.gitignore was not used: zero/.gitignore is a symbolic link, not a regular file]',
        ]),
      );
      expect(outputs.get('call_search')).toContain(
        '[search: skipped 1 files with more than one hard link: another link may be outside the workspace]',
      );
      expect(outputs.get('call_linked')).toBe(
        '"linked.txt" has 2 hard links, and another of them may be a file outside the workspace, so read_file does not open it. Ask the user for its content if you need it.',
      );
      expect(outputs.get('call_agents')).toContain(`which is outside the workspace ${workspace}`);
      expect(outputs.get('call_newline')).toBe('newline file content\n');
      // A 10 MB line comes back cut at read_file's byte cap, never whole.
      expect(Buffer.byteLength(outputs.get('call_long_line') ?? '')).toBeLessThan(200 * 1024);
      for (const [callId, output] of outputs) expect(Buffer.byteLength(output), callId).toBeLessThan(200 * 1024);

      const sessionId = /session: (\S+)/.exec(outcome.stderr)?.[1] ?? '';
      const log = await readFile(join(home, 'sessions', sessionId, 'session.jsonl'), 'utf8');
      const shown = await run(['sessions', 'show', sessionId, '--json']);
      expect(shown.code).toBe(0);
      for (const stored of [log, shown.stdout]) {
        expect(stored).not.toContain(outsideMarker);
        expect(stored).not.toContain(linkedMarker);
      }

      const listed = await run(['sessions', 'list']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(sessionId);
      reportCounts('hostile-workspace', {
        runs: runs.length,
        timedOut: runs.filter((spawned) => spawned.timedOut).length,
        slowestRunMs: Math.max(...runs.map((spawned) => spawned.durationMs)),
        outsideBytesSent: everything.includes(outsideMarker) || everything.includes(linkedMarker) ? 1 : 0,
      });
    },
    4 * RUN_TIMEOUT_MS,
  );
});
