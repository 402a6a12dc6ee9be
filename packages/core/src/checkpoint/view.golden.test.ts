import { describe, expect, it } from 'vitest';
import { buildForgeStateCheckpoint } from './build.js';
import { CHECKPOINT_CAPS, type CheckpointCaps } from './caps.js';
import { TIGHT_CAPS, redactSecrets } from './fixtures.test-helpers.js';
import { expectGolden } from './golden.test-helpers.js';
import type { ContextCheckpoint } from './schema.js';
import { bugfixSession, hostileSession, longSession, minimalSession, type Session } from './sessions.test-helpers.js';
import { checkpointViewCharBound, renderCheckpointView } from './view.js';

function build(session: Session): ContextCheckpoint {
  return buildForgeStateCheckpoint({
    transcript: session.transcript,
    tailStart: session.tailStart,
    redact: redactSecrets,
  });
}

function withoutPayload(
  checkpoint: ContextCheckpoint,
): Omit<ContextCheckpoint, 'strategy' | 'digest' | 'structured' | 'opaque'> {
  const { schemaVersion, source, state, memory, estimatedTokens, safetyLabels } = checkpoint;
  return { schemaVersion, source, state, memory, estimatedTokens, safetyLabels };
}

function structuredCheckpoint(): ContextCheckpoint {
  return {
    ...withoutPayload(build(bugfixSession())),
    strategy: 'model-structured',
    structured: {
      activeGoal: 'Add a lockout test to the auth suite',
      phase: 'retry loop fixed; lockout test not written yet',
      completedWork: ['Reproduced the hang with pnpm test auth', 'Bounded the retry loop in login() to 3 attempts'],
      decisions: [
        { decision: 'Bound the retry loop', rationale: 'the endless loop, not the timeout, made the test hang' },
      ],
      rejectedApproaches: [
        { approach: 'raising TIMEOUT_MS to 30000', reason: 'the test still hung', retryOnlyIf: null },
      ],
      changedFiles: ['src/auth.ts'],
      commandsAndResults: [{ command: 'pnpm test auth', result: 'exit 0 in run_1 after the fix; exit 1 before it' }],
      references: ['test/auth.test.ts'],
      constraints: ['Do not change the public API of src/auth.ts', 'Use pnpm, not npm'],
      blockers: [],
      nextAction: 'Write the lockout test in test/auth.test.ts',
    },
  };
}

function opaqueCheckpoint(): ContextCheckpoint {
  return {
    ...withoutPayload(build(bugfixSession())),
    strategy: 'provider-native',
    opaque: { provider: 'openai', modelId: 'gpt-5-mini', itemHash: 'ab'.repeat(32), bytes: 48213 },
  };
}

const checkpoints: readonly [string, () => ContextCheckpoint][] = [
  ['bugfix', () => build(bugfixSession())],
  ['hostile', () => build(hostileSession())],
  ['minimal', () => build(minimalSession())],
  ['long', () => build(longSession())],
  ['structured', structuredCheckpoint],
  ['opaque', opaqueCheckpoint],
];

const capSets: readonly [string, CheckpointCaps][] = [
  ['default', CHECKPOINT_CAPS],
  ['tight', TIGHT_CAPS],
];

describe('checkpoint view golden files', () => {
  for (const [name, make] of checkpoints) {
    for (const [capsName, caps] of capSets) {
      it(`renders ${name} with ${capsName} caps exactly as golden/${name}.${capsName}.txt`, async () => {
        const view = renderCheckpointView(make(), caps);
        expect(view.length).toBeLessThanOrEqual(checkpointViewCharBound(caps));
        await expectGolden(view, `golden/${name}.${capsName}.txt`);
      });
    }
  }

  for (const [name, make] of checkpoints.slice(0, 4)) {
    it(`builds the ${name} checkpoint exactly as golden/${name}.checkpoint.json`, async () => {
      await expectGolden(`${JSON.stringify(make(), null, 2)}\n`, `golden/${name}.checkpoint.json`);
    });
  }

  it('renders a checkpoint that went through JSON (as after a reload) to the same bytes', () => {
    for (const [, make] of checkpoints) {
      const checkpoint = make();
      const reloaded = JSON.parse(JSON.stringify(checkpoint)) as ContextCheckpoint;
      for (const [, caps] of capSets)
        expect(renderCheckpointView(reloaded, caps)).toBe(renderCheckpointView(checkpoint, caps));
    }
  });
});
