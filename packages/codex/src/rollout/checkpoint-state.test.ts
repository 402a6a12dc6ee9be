import { join } from 'node:path';

import { describe, expect, it } from 'vitest';
import { toCheckpointState } from './checkpoint-state.js';
import { importCodexRollout } from './import-rollout.js';
import { checkpointStateSchema } from '@forge/core/internals';

describe('toCheckpointState', () => {
  it('gives core checkpoint state whose indices point at the right transcript messages', async () => {
    const { state, messages } = await importCodexRollout(join(import.meta.dirname, 'fixtures', 'legacy-0.46.jsonl'));
    const checkpointState = checkpointStateSchema.parse(toCheckpointState(state));

    const taskMessage = messages[checkpointState.task?.evidence.messageIndex ?? -1];
    expect(taskMessage).toEqual({ role: 'user', content: 'Now update the changelog' });
    const failedTest = checkpointState.commands[0];
    expect(failedTest).toMatchObject({ command: 'npm test', exitCode: 1, runId: null });
    const resultMessage = messages[failedTest?.seq ?? -1];
    expect(resultMessage?.role === 'tool' && resultMessage.content[0]?.toolCallId).toBe('call_test_1');
    expect(checkpointState.changedFiles).toEqual([{ path: 'src/parser.ts', hash: null, seq: expect.any(Number) }]);
    expect(checkpointState.artifacts.map((artifact) => artifact.uri)).toEqual([
      'command:cat CHANGELOG.md',
      'command:npm test',
      'command:rm -rf dist',
      'file:src/parser.ts',
    ]);
    expect(checkpointState.recentArtifacts).toEqual(['file:src/parser.ts']);
  });
});
