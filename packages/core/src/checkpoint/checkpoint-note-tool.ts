import type { JsonValue } from '../json.js';
import type { Tool, ToolContext, ToolExecutionResult } from '../tools/tool.js';
import { CHECKPOINT_CAPS, type CheckpointCaps } from './caps.js';
import { CHECKPOINT_NOTE_TOOL, type CheckpointTranscriptEntry } from './host-metadata.js';
import { memoryUpdateJsonSchema } from './memory-update.js';
import { contextAt, replayMemory } from './memory-replay.js';
import { validateMemoryUpdate } from './memory-validator.js';

export interface CheckpointNoteToolOptions {
  /** The session's canonical transcript as it stands when the tool runs. */
  readonly transcript: () => readonly CheckpointTranscriptEntry[];
  readonly caps?: CheckpointCaps;
}

const DESCRIPTION =
  'Record session memory that survives compaction: a plan, decision, fact (with the files it depends on), rejected approach, user constraint or next action. ' +
  'Every note needs evidence. Notes are memory, not rules: anything about approvals, permissions, sandboxing, policy or how you must always/never behave is rejected.';

/**
 * The `checkpoint_note` tool. It only validates: an accepted note is its own tool call in the
 * transcript, and `reduceMemoryFromTranscript` rebuilds memory from those calls. A rejected note
 * comes back as an error the model sees, with the reason. Risk `read`: it writes session memory only.
 */
export function createCheckpointNoteTool(options: CheckpointNoteToolOptions): Tool {
  const caps = options.caps ?? CHECKPOINT_CAPS;
  return {
    name: CHECKPOINT_NOTE_TOOL,
    description: DESCRIPTION,
    inputSchema: memoryUpdateJsonSchema,
    risk: 'read',
    describe(input: JsonValue): string {
      const kind =
        input !== null && typeof input === 'object' && !Array.isArray(input)
          ? (input as { readonly kind?: JsonValue }).kind
          : undefined;
      return `record a ${typeof kind === 'string' ? kind : 'memory'} note in the session checkpoint`;
    },
    async execute(input: JsonValue, context: ToolContext): Promise<ToolExecutionResult> {
      const entries = options.transcript();
      const { memory, observer } = replayMemory(entries, caps);
      const seq = observer.toolCalls.get(context.toolCallId)?.seq ?? entries.length;
      const validation = validateMemoryUpdate(input, contextAt(observer, memory, seq, caps));
      if (!validation.ok) {
        return { output: { type: 'error-text', value: validation.reason }, metadata: { rejected: validation.code } };
      }
      return {
        output: { type: 'text', value: `Recorded ${validation.update.kind.replace('_', ' ')} in session memory.` },
        metadata: { memoryKind: validation.update.kind },
      };
    },
  };
}
