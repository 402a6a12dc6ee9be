import type { Message, ModelAdapter } from '@forge/core';
import { scaleEstimate } from '@forge/core/budget';
import { ScriptedModel } from '@forge/core/testing';
import { describe, expect, it } from 'vitest';
import { instructionsFrom } from './compaction-fixtures.test-helpers.js';
import { createSession } from '@forge/persistence';
import { openSessionHandle } from './session-turn.js';
import { useTemporaryHome } from '@forge/persistence/test-helpers/temporary-home';

const temporaryHome = useTemporaryHome();

/** `model` as the CLI's calibration leaves it once the provider reported more than it estimated: every estimate × `factor`. */
function calibrated(model: ModelAdapter, factor: number): ModelAdapter {
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    capabilities: model.capabilities,
    estimateRequestTokens: async (request) => scaleEstimate(await model.estimateRequestTokens(request), factor),
    countMessageTokens: async (messages) =>
      (await model.countMessageTokens(messages)).map((tokens) => Math.ceil(tokens * factor)),
    doStream: (request, options) => model.doStream(request, options),
  };
}

describe('a calibrated estimate on a session that outgrew the window', () => {
  it('compacts the history instead of stopping as if what must be sent could not fit', async () => {
    // Plain conversation, no tool outputs to project: only a checkpoint can make room.
    const stored: Message[] = Array.from({ length: 200 }, (_, turn): Message[] => [
      { role: 'user', content: `Question ${turn}: ${'about the parser and its error recovery '.repeat(40)}` },
      {
        role: 'assistant',
        content: [{ type: 'text', text: `Answer ${turn}: ${'the recovery point is the next statement '.repeat(40)}` }],
      },
    ]).flat();
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: '/w' });
    await writer.appendMessages(stored);
    await writer.close();
    const handle = await openSessionHandle({ home, sessionId: writer.id });
    try {
      const scripted = new ScriptedModel([{ text: 'ok' }], {
        capabilities: { contextWindowTokens: 40_000, maxOutputTokens: 1_000 },
      });
      const turn = await handle.runTurn({
        model: calibrated(scripted, 1.5),
        request: 'One more question.',
        instructions: instructionsFrom('Answer briefly.'),
        context: { mode: 'compact', bufferTokens: 1_000, reservedOutputTokens: 1_000 },
      });
      expect(turn.result.status).toBe('completed');
      expect(scripted.requests).toHaveLength(1);
      expect(scripted.requests[0]?.checkpoint).toBeDefined();
    } finally {
      await handle.close();
    }
  });
});
