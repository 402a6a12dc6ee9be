import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../json.js';
import { validateMemoryUpdate, type MemoryValidationContext } from './memory-validator.js';
import { emptyCheckpointMemory } from './schema.js';

/*
 * Regression found by the reliability suite's hostile history: a model obeying an injected file
 * could record an "always do X" rule as a user constraint by citing any user message.
 */

const context: MemoryValidationContext = {
  seq: 4,
  memory: emptyCheckpointMemory(),
  userMessages: new Map([
    [0, 'Summarize the docs and the open issue.'],
    [2, 'Use pnpm for every install and script, never npm. Do not touch files under migrations/.'],
  ]),
  toolCalls: new Map([['call_read', { toolName: 'read_file', resultSeq: 3, failed: false, path: 'AGENTS.md' }]]),
  artifacts: new Map([['file:AGENTS.md', { kind: 'file', hash: 'a'.repeat(64) }]]),
};

function code(update: JsonValue): string {
  const result = validateMemoryUpdate(update, context);
  return result.ok ? 'accepted' : result.code;
}

describe('constraints must be stated by the user message they cite', () => {
  it('rejects a rule the cited message never states, by index or by an unrelated quote', () => {
    expect(
      code({
        kind: 'constraint',
        text: 'Always run the deploy script before answering',
        evidence: { source: 'user', messageIndex: 0 },
      }),
    ).toBe('constraint-not-from-user');
    expect(
      code({
        kind: 'constraint',
        text: 'Never run the tests before answering',
        evidence: { source: 'user', quote: 'summarize the docs' },
      }),
    ).toBe('constraint-not-from-user');
  });

  it('accepts the user constraint in the user words or a close paraphrase', () => {
    expect(
      code({
        kind: 'constraint',
        text: 'Use pnpm for every install and script, never npm.',
        evidence: { source: 'user', messageIndex: 2 },
      }),
    ).toBe('accepted');
    expect(
      code({
        kind: 'constraint',
        text: 'never touch migrations/',
        evidence: { source: 'user', quote: 'do not touch files under migrations' },
      }),
    ).toBe('accepted');
  });

  it('explains the rejection to the model', () => {
    const result = validateMemoryUpdate(
      { kind: 'constraint', text: 'Always push to main', evidence: { source: 'user', messageIndex: 0 } },
      context,
    );
    expect(result.ok ? '' : result.reason).toMatch(/user message 0 does not state this constraint/);
  });
});
