import { CHECKPOINT_CAPS, type CheckpointCaps } from './caps.js';
import { CHECKPOINT_NOTE_TOOL, type CheckpointTranscriptEntry } from './host-metadata.js';
import { applyMemoryUpdate } from './memory-apply.js';
import { validateMemoryUpdate, type MemoryValidationContext } from './memory-validator.js';
import { emptyCheckpointMemory, type CheckpointMemory } from './schema.js';
import { TranscriptObserver } from './transcript-observer.js';

export interface MemoryReplay {
  readonly memory: CheckpointMemory;
  /** The observer after the whole transcript: a validation context for the next note. */
  readonly observer: TranscriptObserver;
}

/** The validation context for a note made at `seq`, given what has been observed so far. */
export function contextAt(
  observer: TranscriptObserver,
  memory: CheckpointMemory,
  seq: number,
  caps: CheckpointCaps,
): MemoryValidationContext {
  return {
    seq,
    memory,
    userMessages: observer.userMessages,
    toolCalls: observer.toolCalls,
    artifacts: observer.artifacts,
    caps,
  };
}

/**
 * Replays the transcript: every `checkpoint_note` call whose result is not an error is validated
 * again, against the session as it was when the call ran, and applied. Memory therefore needs no
 * store of its own: the canonical transcript is its source, and a result edited on disk to look
 * accepted still cannot smuggle in an update the validator refuses.
 */
export function replayMemory(
  entries: readonly CheckpointTranscriptEntry[],
  caps: CheckpointCaps = CHECKPOINT_CAPS,
): MemoryReplay {
  const observer = new TranscriptObserver();
  let memory = emptyCheckpointMemory();
  for (const entry of entries) {
    if (entry.message.role === 'tool') {
      for (const part of entry.message.content) {
        if (part.toolName !== CHECKPOINT_NOTE_TOOL || part.output.type === 'error-text') continue;
        const call = observer.toolCalls.get(part.toolCallId);
        if (call === undefined || call.toolName !== CHECKPOINT_NOTE_TOOL) continue;
        const validation = validateMemoryUpdate(call.input, contextAt(observer, memory, call.seq, caps));
        if (validation.ok) memory = applyMemoryUpdate(memory, validation.update, caps);
      }
    }
    observer.observe(entry);
  }
  return { memory, observer };
}

/** Session memory rebuilt from the accepted `checkpoint_note` calls of the transcript. */
export function reduceMemoryFromTranscript(
  entries: readonly CheckpointTranscriptEntry[],
  caps: CheckpointCaps = CHECKPOINT_CAPS,
): CheckpointMemory {
  return replayMemory(entries, caps).memory;
}
