import type { ContextMode, Tool } from '@forge/core';
import { sessionModelToolStandIns, type SessionModelToolOffer } from '@forge/core/compaction';

/** The part of Forge's system prompt every run gets: who the agent is, its workspace tools, how to work. */
const BASE_PROMPT = `You are Forge, a coding agent working in the user's workspace from a terminal.

Tools (every path is relative to the workspace root; nothing outside it can be touched):
- list_files: list a directory (recursive: true for everything below it).
- read_file: read a text file; it returns the content and the host records its hash.
- search: find text or a regular expression across the workspace.
- edit_file: create a file, replace an exact passage, or rewrite a file. Read the whole file first; an edit of a file that changed since your last full read is refused.
- run_command: run a program with an argv array (no shell), with a timeout and an output cap.

Some tool calls need the user's approval. When a call is denied, do not retry it unchanged: read the reason, adjust, or explain what you would have done.

Work in small verified steps. Look before you change anything, keep edits minimal, and say plainly what you did, what you did not do, and what failed.`;

const COMPACTION_BY_MODE: Partial<Record<ContextMode, string>> = {
  compact:
    'This session is long-lived: when the context window fills, Forge replaces older turns with a checkpoint (the task, files seen and their hashes, commands and failures, and the notes below) and keeps the recent turns verbatim. The full transcript is always stored.',
  shadow: 'Forge plans checkpoints of older turns in this session and validates them, but does not use them yet (shadow mode): every request still carries the conversation itself.',
};

const CHECKPOINT_NOTE_LINE =
  "- checkpoint_note: record what must survive a checkpoint: facts about the code (with the files they depend on), constraints the user stated, approaches that failed and why, decisions, plan steps and your next action. Each note needs evidence (the user's words, or a tool call that has a result). A note the validator refuses comes back as a tool error saying why; fix it or move on. Notes are memory, never permission.";

const REQUEST_COMPACTION_LINE =
  '- request_compaction: ask for older turns to be replaced by a checkpoint before your next step, when they are no longer needed verbatim; Forge decides whether it pays off, and the result shows how full the context is.';

/**
 * Forge's system prompt for a run in `mode` offering `offer`: the base prompt, then, when the
 * session offers them, what `checkpoint_note` and `request_compaction` are for.
 */
export function systemPromptFor(mode: ContextMode, offer: SessionModelToolOffer): string {
  const lines = [offer.checkpointNote ? CHECKPOINT_NOTE_LINE : undefined, offer.requestCompaction ? REQUEST_COMPACTION_LINE : undefined].filter((line): line is string => line !== undefined);
  if (lines.length === 0) return BASE_PROMPT;
  const intro = COMPACTION_BY_MODE[mode] ?? '';
  return `${BASE_PROMPT}\n\nContext:\n${intro}\n${lines.join('\n')}`;
}

/** Which context tools the user allows (configuration `context.checkpointNote`, `context.requestCompaction`; both on by default). */
export interface ContextToolSettings {
  readonly checkpointNote?: boolean;
  readonly requestCompaction?: boolean;
}

/** The context tools a session in `mode` offers under `settings`: none outside `shadow` and `compact`. */
export function contextToolOffer(mode: ContextMode, settings: ContextToolSettings = {}): SessionModelToolOffer {
  const automatic = mode === 'shadow' || mode === 'compact';
  return { checkpointNote: automatic && settings.checkpointNote !== false, requestCompaction: automatic && settings.requestCompaction !== false };
}

/** What the model is offered in one context mode: see {@link agentSurface}. */
export interface AgentSurface {
  readonly mode: ContextMode;
  /** The tools the run itself is given (workspace tools, then any others), in order. */
  readonly tools: readonly Tool[];
  /** The context tools the session adds after them (`SessionCompactionOptions.modelTools`). */
  readonly modelTools: SessionModelToolOffer;
  /**
   * What the session's compaction options say for this surface: its context tools, and that a
   * checkpoint keeps every user request and the constraints stated in them (a model that notes
   * nothing still finds what the user said).
   */
  readonly compaction: { readonly modelTools: SessionModelToolOffer; readonly requests: 'all' };
  /** The first section of the instructions, before AGENTS.md files. */
  readonly systemPrompt: string;
  /**
   * Every tool a stored session's run advertises, in order: `tools`, then the context tools as
   * stand-ins (for measuring and listing; the session binds the live ones to its transcript).
   */
  readonly advertised: readonly Tool[];
}

/**
 * The one place that decides what a native run offers the model for a context mode: its tools,
 * the context tools its session adds, and the system prompt that describes them. `forge run`, the
 * REPL and the eval harness all build their runs from it, so the agent the evals measure is the
 * agent the CLI ships (`apps/cli/src/agent/agent-parity.test.ts` checks it).
 */
export function agentSurface(options: { readonly mode: ContextMode; readonly tools: readonly Tool[]; readonly settings?: ContextToolSettings }): AgentSurface {
  const modelTools = contextToolOffer(options.mode, options.settings);
  return {
    mode: options.mode,
    tools: options.tools,
    modelTools,
    compaction: { modelTools, requests: 'all' },
    systemPrompt: systemPromptFor(options.mode, modelTools),
    advertised: [...options.tools, ...sessionModelToolStandIns(modelTools)],
  };
}

/** Core's, re-exported for the callers that take the rest of the agent surface from here. */
export { toolDefinitions } from '@forge/core';
