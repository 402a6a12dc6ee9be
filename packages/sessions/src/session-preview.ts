import { InvalidInputError, type OpaqueProviderState } from '@forge/core';
import { createRedactor, type Redactor } from '@forge/core/redaction';
import {
  compactBetweenTurns,
  type CompactionSessionPort,
  type SessionCompactOptions,
  type SessionCompactResult,
} from './session-compaction.js';
import type { SessionTranscript } from '@forge/persistence';
import { viewOfStoredSession } from './stored-session-view.js';

/**
 * What `forge compact --dry-run` shows: the manual compaction `SessionHandle.compact` would make
 * for this stored transcript now — planned, built, validated and measured by the same code and
 * the same model estimator — with the deterministic strategy, no model call, no lock and no
 * write. Its `tokensBefore` and `tokensAfter` are the numbers the real compaction reports.
 */
export async function previewSessionCompaction(
  transcript: SessionTranscript,
  options: SessionCompactOptions & { readonly redactor?: Redactor },
): Promise<SessionCompactResult> {
  const redactor = options.redactor ?? createRedactor();
  const redact = (text: string): string => redactor.redact(text);
  const nativeStates = new Map<string, OpaqueProviderState>();
  const { entries, resolved, view } = await viewOfStoredSession(transcript, {
    mode: 'compact',
    model: options.model,
    redact,
    nativeStates,
    ...(options.compaction?.caps === undefined ? {} : { caps: options.compaction.caps }),
    ...(options.artifactHashes === undefined ? {} : { artifactHashes: options.artifactHashes }),
  });
  const port: CompactionSessionPort = {
    sessionId: transcript.id,
    writer: {
      messages: transcript.messages,
      messageCount: transcript.messages.length,
      recordCheckpoint: () =>
        Promise.reject(
          new InvalidInputError({ message: 'A compaction preview never stores a checkpoint; this is a bug in Forge.' }),
        ),
    },
    transcript: () => entries,
    current: () =>
      resolved?.ok === true
        ? { summarizedThrough: resolved.active.source.summarizedThrough, id: resolved.active.id }
        : undefined,
    nativeStates,
    redact,
    shadow: { projected: new Set() },
  };
  return compactBetweenTurns({ port, view, options, preview: true });
}
