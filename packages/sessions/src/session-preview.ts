import { InvalidInputError, type OpaqueProviderState } from '@forge/core';
import { withRunIds } from '@forge/core/checkpoint';
import { createRedactor, type Redactor } from '@forge/core/redaction';
import { currentArtifactHashesFor, resolveStoredCheckpoint } from './checkpoint-install.js';
import { compactBetweenTurns, type CompactionSessionPort, type SessionCompactOptions, type SessionCompactResult } from './session-compaction.js';
import type { SessionTranscript } from '@forge/persistence';
import { selectSessionView } from './session-view.js';

/**
 * What `forge compact --dry-run` shows: the manual compaction `SessionHandle.compact` would make
 * for this stored transcript now — planned, built, validated and measured by the same code and
 * the same model estimator — with the deterministic strategy, no model call, no lock and no
 * write. Its `tokensBefore` and `tokensAfter` are the numbers the real compaction reports.
 */
export async function previewSessionCompaction(transcript: SessionTranscript, options: SessionCompactOptions & { readonly redactor?: Redactor }): Promise<SessionCompactResult> {
  const redactor = options.redactor ?? createRedactor();
  const entries = withRunIds(transcript.messages, transcript.runs);
  const resolved = transcript.checkpoint === undefined ? undefined : resolveStoredCheckpoint(transcript.checkpoint, entries, options.compaction?.caps);
  const nativeStates = new Map<string, OpaqueProviderState>();
  const port: CompactionSessionPort = {
    sessionId: transcript.id,
    writer: {
      messages: transcript.messages,
      recordCheckpoint: () => Promise.reject(new InvalidInputError({ message: 'A compaction preview never stores a checkpoint; this is a bug in Forge.' })),
    },
    transcript: () => entries,
    current: () => (resolved?.ok === true ? { summarizedThrough: resolved.active.source.summarizedThrough, id: resolved.active.id } : undefined),
    nativeStates,
    redact: (text) => redactor.redact(text),
    shadow: { projected: new Set() },
  };
  const currentHashes = await currentArtifactHashesFor(resolved, options.artifactHashes);
  const view = selectSessionView({
    mode: 'compact',
    transcript: entries,
    stored: transcript.checkpoint,
    ...(resolved === undefined ? {} : { resolved }),
    nativeStates,
    redact: port.redact,
    model: options.model,
    ...(options.compaction?.caps === undefined ? {} : { caps: options.compaction.caps }),
    ...(currentHashes === undefined ? {} : { currentHashes }),
  });
  return compactBetweenTurns({ port, view, options, preview: true });
}
