import { describe, expect, it } from 'vitest';
import { buildForgeStateCheckpoint } from './build.js';
import { editFile, hashOf, note, readFile, redactSecrets, user } from './fixtures.test-helpers.js';
import { currentArtifactHashes, factStatus, observeArtifactHashes } from './staleness.js';
import { renderCheckpointView } from './view.js';

const A = hashOf('a');
const B = hashOf('b');

describe('factStatus', () => {
  it('is VALID when every dependency still has the hash it had', () => {
    expect(factStatus({ dependsOn: [{ uri: 'file:x', hash: A }] }, new Map([['file:x', A]]))).toEqual({
      status: 'VALID',
    });
    expect(factStatus({ dependsOn: [] }, new Map())).toEqual({ status: 'VALID' });
  });

  it('is SUSPECT when a dependency changed, naming it', () => {
    expect(factStatus({ dependsOn: [{ uri: 'file:x', hash: A }] }, new Map([['file:x', B]]))).toEqual({
      status: 'SUSPECT',
      uri: 'file:x',
      reason: 'file:x changed since recorded',
    });
  });

  it('is SUSPECT when the current hash is unknown or was unknown when recorded', () => {
    expect(factStatus({ dependsOn: [{ uri: 'file:x', hash: A }] }, new Map())).toEqual({
      status: 'SUSPECT',
      uri: 'file:x',
      reason: 'current hash of file:x unknown',
    });
    expect(factStatus({ dependsOn: [{ uri: 'file:x', hash: A }] }, new Map([['file:x', null]]))).toMatchObject({
      status: 'SUSPECT',
      reason: 'current hash of file:x unknown',
    });
    expect(factStatus({ dependsOn: [{ uri: 'command:make', hash: null }] }, new Map([['command:make', null]]))).toEqual(
      {
        status: 'SUSPECT',
        uri: 'command:make',
        reason: 'hash of command:make was unknown when recorded',
      },
    );
  });

  it('is SUSPECT when any one of several dependencies changed', () => {
    const fact = {
      dependsOn: [
        { uri: 'file:a', hash: A },
        { uri: 'file:b', hash: B },
      ],
    };
    expect(
      factStatus(
        fact,
        new Map([
          ['file:a', A],
          ['file:b', A],
        ]),
      ),
    ).toMatchObject({ status: 'SUSPECT', uri: 'file:b' });
  });
});

describe('staleness in the view', () => {
  const base = [
    user('Explain the config loader.'),
    ...readFile('r1', 'src/config.ts', 'v1'),
    ...note('n1', {
      kind: 'fact',
      key: 'config.format',
      value: 'config is TOML',
      evidence: { source: 'tool-call', toolCallId: 'r1' },
      dependsOn: ['file:src/config.ts'],
    }),
  ];

  it('turns a fact SUSPECT when its file is edited after the fact was recorded, and VALID again when the content comes back', () => {
    const fresh = renderCheckpointView(
      buildForgeStateCheckpoint({ transcript: base, tailStart: base.length, redact: redactSecrets }),
    );
    expect(fresh).toContain('[FACTS_VALID]\n- config.format: config is TOML');
    const edited = [...base, ...editFile('e1', 'src/config.ts', 'v1', 'v2')];
    const stale = renderCheckpointView(
      buildForgeStateCheckpoint({ transcript: edited, tailStart: edited.length, redact: redactSecrets }),
    );
    expect(stale).toContain('[FACTS_VALID]\n- (none)');
    expect(stale).toContain(
      '- config.format: config is TOML (SUSPECT: file:src/config.ts changed since recorded; re-check before relying on it)',
    );
    const reverted = [...edited, ...editFile('e2', 'src/config.ts', 'v2', 'v1')];
    expect(
      renderCheckpointView(
        buildForgeStateCheckpoint({ transcript: reverted, tailStart: reverted.length, redact: redactSecrets }),
      ),
    ).toContain('[FACTS_VALID]\n- config.format');
  });

  it('uses observations newer than the checkpoint: an edit in the tail makes the fact SUSPECT', () => {
    const checkpoint = buildForgeStateCheckpoint({ transcript: base, tailStart: base.length, redact: redactSecrets });
    const later = [...base, ...editFile('e1', 'src/config.ts', 'v1', 'v2')];
    const newer = observeArtifactHashes(later, checkpoint.source.messageCount);
    expect(newer).toEqual(new Map([['file:src/config.ts', hashOf('v2')]]));
    expect(currentArtifactHashes(checkpoint, newer).get('file:src/config.ts')).toBe(hashOf('v2'));
    expect(renderCheckpointView(checkpoint, undefined, newer)).toContain(
      '(SUSPECT: file:src/config.ts changed since recorded',
    );
  });

  it('treats a file whose hash the checkpoint no longer holds as unknown', () => {
    const checkpoint = buildForgeStateCheckpoint({ transcript: base, tailStart: base.length, redact: redactSecrets });
    const view = renderCheckpointView(checkpoint, undefined, new Map([['file:src/config.ts', null]]));
    expect(view).toContain('(SUSPECT: current hash of file:src/config.ts unknown');
  });
});
