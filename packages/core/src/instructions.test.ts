import { describe, expect, it } from 'vitest';
import { createInstructionSnapshot } from './instructions.js';
import { sha256Hex } from './hashing.js';

describe('instruction snapshots', () => {
  it('orders sources outermost first and records each file hash', () => {
    const snapshot = createInstructionSnapshot('Base.', [
      { origin: '/repo/AGENTS.md', content: 'Use pnpm.' },
      { origin: '/repo/app/AGENTS.md', content: 'Use vitest.' },
    ]);
    expect(snapshot.text).toBe(
      'Base.\n\n# Instructions from /repo/AGENTS.md\n\nUse pnpm.\n\n# Instructions from /repo/app/AGENTS.md\n\nUse vitest.',
    );
    expect(snapshot.sources).toEqual([
      { origin: '/repo/AGENTS.md', sha256: sha256Hex('Use pnpm.') },
      { origin: '/repo/app/AGENTS.md', sha256: sha256Hex('Use vitest.') },
    ]);
    expect(snapshot.hash).toBe(sha256Hex(snapshot.text));
  });

  it('changes its hash when any file changes', () => {
    const before = createInstructionSnapshot('Base.', [{ origin: 'AGENTS.md', content: 'a' }]);
    const after = createInstructionSnapshot('Base.', [{ origin: 'AGENTS.md', content: 'b' }]);
    expect(before.hash).not.toBe(after.hash);
    expect(createInstructionSnapshot('Base.', [{ origin: 'AGENTS.md', content: 'a' }]).hash).toBe(before.hash);
  });
});
