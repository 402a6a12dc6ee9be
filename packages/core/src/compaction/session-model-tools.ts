import { CHECKPOINT_CAPS, type CheckpointCaps } from '../checkpoint/caps.js';
import { createCheckpointNoteTool } from '../checkpoint/checkpoint-note-tool.js';
import type { CheckpointTranscriptEntry } from '../checkpoint/host-metadata.js';
import type { Tool } from '../tools/tool.js';
import { CompactionRequestChannel, createRequestCompactionTool } from './request-compaction-tool.js';

/**
 * Which of the context-management tools a session offers the model: `checkpoint_note` (validated
 * memory that survives compaction) and `request_compaction` (ask for a checkpoint at the next safe
 * boundary). Only sessions in mode `shadow` or `compact` offer them.
 */
export interface SessionModelToolOffer {
  readonly checkpointNote: boolean;
  readonly requestCompaction: boolean;
}

export const NO_SESSION_MODEL_TOOLS: SessionModelToolOffer = Object.freeze({
  checkpointNote: false,
  requestCompaction: false,
});

/** What the live tools are bound to: the session's transcript and the run's request channel. */
export interface SessionModelToolBindings {
  readonly transcript: () => readonly CheckpointTranscriptEntry[];
  readonly channel: CompactionRequestChannel;
  readonly caps?: CheckpointCaps;
}

/**
 * The context-management tools of one run, in the order they are advertised (after every other
 * tool): `checkpoint_note`, then `request_compaction`. The one place that decides both their
 * definitions and their order, for the tools a session really runs and for what is measured or
 * listed before a run.
 */
export function createSessionModelTools(offer: SessionModelToolOffer, bindings: SessionModelToolBindings): Tool[] {
  const tools: Tool[] = [];
  if (offer.checkpointNote)
    tools.push(createCheckpointNoteTool({ transcript: bindings.transcript, caps: bindings.caps ?? CHECKPOINT_CAPS }));
  if (offer.requestCompaction) tools.push(createRequestCompactionTool(bindings.channel));
  return tools;
}

/**
 * The same tools bound to nothing: for measuring their schema cost and listing them before a run
 * (`forge context`, `forge compact`). Calling one records nothing anywhere.
 */
export function sessionModelToolStandIns(offer: SessionModelToolOffer): Tool[] {
  return createSessionModelTools(offer, { transcript: () => [], channel: new CompactionRequestChannel() });
}
