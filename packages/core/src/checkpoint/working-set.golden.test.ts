import { describe, expect, it } from 'vitest';
import { buildForgeStateCheckpoint } from './build.js';
import { CHECKPOINT_CAPS } from './caps.js';
import { hashOf, redactSecrets, TIGHT_CAPS } from './fixtures.test-helpers.js';
import { expectGolden } from './golden.test-helpers.js';
import { renderCheckpointView } from './view.js';
import { MATH_JS, workingSetTranscript, workspaceNow } from './working-set.test-helpers.js';
import type { WorkingSetLimits } from './working-set.js';

const DEFAULT_LIMITS: WorkingSetLimits = { maxFiles: 8, maxChars: 64_000, maxFileChars: 4000 };
const TIGHT_LIMITS: WorkingSetLimits = { maxFiles: 3, maxChars: 600, maxFileChars: 300 };

function checkpoint(limits: WorkingSetLimits) {
  const transcript = workingSetTranscript();
  return buildForgeStateCheckpoint({
    transcript,
    tailStart: transcript.length - 1,
    redact: redactSecrets,
    workingSet: limits,
  });
}

describe('checkpoint view golden files with a working set', () => {
  it('renders files in hand (a changed file, a region, header-like lines, a secret, a gone and a binary file) exactly as golden/working-set.default.txt', async () => {
    const view = renderCheckpointView(checkpoint(DEFAULT_LIMITS), CHECKPOINT_CAPS, undefined, {
      contents: workspaceNow(),
      redact: redactSecrets,
    });
    await expectGolden(view, 'golden/working-set.default.txt');
  });

  it('renders a tight working set (cut region, spent budget) with tight caps exactly as golden/working-set.tight.txt', async () => {
    const unchanged = workspaceNow({ 'src/math.js': { kind: 'text', text: MATH_JS, sha256: hashOf(MATH_JS) } });
    const view = renderCheckpointView(checkpoint(TIGHT_LIMITS), TIGHT_CAPS, undefined, {
      contents: unchanged,
      redact: redactSecrets,
    });
    await expectGolden(view, 'golden/working-set.tight.txt');
  });

  it('builds the working-set checkpoint exactly as golden/working-set.checkpoint.json (pointers, no text)', async () => {
    const built = checkpoint(DEFAULT_LIMITS);
    expect(built.workingSet?.files).toHaveLength(5);
    await expectGolden(`${JSON.stringify(built, null, 2)}\n`, 'golden/working-set.checkpoint.json');
  });
});
