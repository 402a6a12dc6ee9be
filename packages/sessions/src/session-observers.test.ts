import type { EventEnvelope, Tool } from '@forge/core';
import { createObserverHub, type Observer } from '@forge/core/observers';
import { createRedactor } from '@forge/core/redaction';
import { ScriptedModel } from '@forge/core/testing';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { allowAll } from './compaction-fixtures.test-helpers.js';
import { openSessionHandle } from './session-turn.js';
import { useTemporaryHome } from '@forge/persistence/test-helpers/temporary-home';

const temporaryHome = useTemporaryHome();
const instructions = { text: 'You are Forge.', sources: [], hash: 'b'.repeat(64) };
const SECRET = 'sk-observer-secret-0123456789';

const envTool: Tool = {
  name: 'read_env',
  description: 'Reads the environment file.',
  inputSchema: { type: 'object', properties: {} },
  risk: 'read',
  describe: () => 'read .env',
  execute: async () => ({ output: { type: 'text', value: `API_KEY=${SECRET}` } }),
};

describe('observers on a session turn', () => {
  it('get every event of the run redacted and frozen, and a failing observer does not stop the turn', async () => {
    const home = await temporaryHome();
    const redactor = createRedactor({ secrets: [SECRET] });
    const seen: EventEnvelope[] = [];
    const watcher: Observer = (envelope) => {
      seen.push(envelope);
    };
    const hub = createObserverHub({
      redactor,
      observers: [
        () => {
          throw new Error('plugin crashed');
        },
        watcher,
      ],
    });
    const handle = await openSessionHandle({ home, workspaceRoot: '/work/project', redactor });
    const model = new ScriptedModel([
      { toolCalls: [{ toolCallId: 'call_env', toolName: 'read_env', input: {} }] },
      { text: `The key is ${SECRET}.` },
    ]);
    const turn = await handle.runTurn({
      model,
      instructions,
      request: 'What is the API key?',
      tools: [envTool],
      approvals: allowAll,
      observers: hub,
    });
    await handle.close();

    expect(turn.result.status).toBe('completed');
    expect(turn.result.text).toContain(SECRET);
    expect(seen.map((envelope) => envelope.event.type)).toContain('tool.call.completed');
    expect(seen.at(-1)?.event.type).toBe('run.completed');
    expect(
      seen.every(
        (envelope) => envelope.sessionId === handle.id && Object.isFrozen(envelope) && Object.isFrozen(envelope.event),
      ),
    ).toBe(true);
    expect(JSON.stringify(seen)).not.toContain(SECRET);
    expect(hub.failures()).toBe(seen.length);
    const trace = await readFile(turn.tracePath, 'utf8');
    expect(trace).not.toContain(SECRET);
  });
});
