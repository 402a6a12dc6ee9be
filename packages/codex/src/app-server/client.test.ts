import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodexBinaryMissingError, CodexExitedError, CodexVersionError } from '../errors.js';
import { startCodexHarness, type CodexHarness } from '../testing/codex-harness.test-helpers.js';
import { assistantMessage } from '../testing/loopback-responses.test-helpers.js';
import { CodexAppServer, type CodexNotification } from './client.js';
import { TESTED_CODEX_VERSION } from './version.js';

let harness: CodexHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

function waitForNotification(server: CodexAppServer, method: string): Promise<CodexNotification> {
  return new Promise((resolve) => {
    const stop = server.subscribe((notification) => {
      if (notification.method !== method) return;
      stop();
      resolve(notification);
    });
  });
}

describe('CodexAppServer against the real codex binary', () => {
  it('initializes, reports its real version and runs a plain turn through the loopback provider', async () => {
    harness = await startCodexHarness({ steps: [{ items: [assistantMessage('Hello from the loopback model.')] }] });
    expect(harness.server.info.version).toBe(TESTED_CODEX_VERSION);
    expect(harness.server.info.codexHome).toBe(harness.codexHome);

    const thread = await harness.server.startThread({ cwd: harness.workspace });
    const completed = waitForNotification(harness.server, 'turn/completed');
    const notifications: string[] = [];
    harness.server.subscribe((notification) => notifications.push(notification.method));
    await harness.server.startTurn(thread.threadId, 'Say hello.');
    const done = (await completed).params as { turn: { status: string } };

    expect(done.turn.status).toBe('completed');
    expect(notifications).toContain('item/agentMessage/delta');
    expect(harness.provider.requests).toHaveLength(1);
    const input = harness.provider.requests[0]?.body.input ?? [];
    expect(JSON.stringify(input.at(-1))).toContain('Say hello.');
  });
});

describe('CodexAppServer start-up failures', () => {
  let directory: string | undefined;
  afterEach(async () => {
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  });

  it('says clearly that the binary is missing', async () => {
    const start = CodexAppServer.start({ binaryPath: '/nonexistent/codex' });
    await expect(start).rejects.toSatisfy((error: unknown) => CodexBinaryMissingError.isInstance(error));
    await expect(start).rejects.toThrow(/does not exist or is not executable.*install @openai\/codex/i);
  });

  it('reports the exit code and stderr when the server dies during start-up', async () => {
    directory = await mkdtemp(join(tmpdir(), 'forge-codex-fake-'));
    const script = join(directory, 'codex');
    await writeFile(script, '#!/bin/sh\necho "config error: unknown provider" >&2\nexit 3\n');
    await chmod(script, 0o755);
    const start = CodexAppServer.start({ binaryPath: script });
    await expect(start).rejects.toSatisfy((error: unknown) => CodexExitedError.isInstance(error));
    await expect(start).rejects.toThrow(/exited with code 3[\s\S]*unknown provider/);
  });

  it('refuses a server that speaks an unknown version', async () => {
    directory = await mkdtemp(join(tmpdir(), 'forge-codex-fake-'));
    const script = join(directory, 'codex');
    await writeFile(
      script,
      `#!/usr/bin/env node\nrequire('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {\n  const message = JSON.parse(line);\n  if (message.method === 'initialize') process.stdout.write(JSON.stringify({ id: message.id, result: { userAgent: 'forge/9.4.0 (Linux)' } }) + '\\n');\n});\n`,
    );
    await chmod(script, 0o755);
    const start = CodexAppServer.start({ binaryPath: script });
    await expect(start).rejects.toSatisfy((error: unknown) => CodexVersionError.isInstance(error));
    await expect(start).rejects.toThrow(/version 9\.4\.0.*0\.169\.0/);
  });
});
