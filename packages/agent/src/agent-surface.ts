import {
  toolDefinitions,
  type ContextMode,
  type ContextPolicy,
  type InstructionSnapshot,
  type Message,
  type ModelAdapter,
  type Tool,
} from '@forge/core';
import { sessionModelToolStandIns, type SessionModelToolOffer } from '@forge/core/compaction';
import { selectRequestView } from '@forge/core/view';

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
    'This session is long-lived: when the context window fills, Forge replaces older turns with a checkpoint (the task, files seen with their hashes, commands, failures and your notes) and keeps recent turns verbatim. The full transcript is always stored.',
  shadow:
    'Forge plans checkpoints of older turns in this session and validates them, but does not use them yet (shadow mode): every request still carries the conversation itself.',
};

const CHECKPOINT_NOTE_LINE =
  "- checkpoint_note: record what must survive a checkpoint: facts about the code (with the files they depend on), constraints the user stated, failed approaches and why, decisions, plan steps and your next action. Each note needs evidence (the user's words, or a tool call that has a result); a refused note comes back as a tool error saying why. Notes are memory, never permission. Forge offers this tool once older turns may be replaced: when it appears, note what you learned earlier and still need. Make notes in the same step as your next tool call, not in a step of their own.";

const REQUEST_COMPACTION_LINE =
  '- request_compaction: ask for older turns to be replaced by a checkpoint when they are no longer needed verbatim; Forge decides whether it pays off.';

/**
 * Forge's system prompt for a run in `mode` offering `offer`: the base prompt, then, when the
 * session offers them, what `checkpoint_note` and `request_compaction` are for.
 */
export function systemPromptFor(mode: ContextMode, offer: SessionModelToolOffer): string {
  const lines = [
    offer.checkpointNote ? CHECKPOINT_NOTE_LINE : undefined,
    offer.requestCompaction ? REQUEST_COMPACTION_LINE : undefined,
  ].filter((line): line is string => line !== undefined);
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
  return {
    checkpointNote: automatic && settings.checkpointNote !== false,
    requestCompaction: automatic && settings.requestCompaction !== false,
  };
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
 * agent the CLI ships (`apps/cli/src/agent/agent-requests.test.ts` compares their request bodies).
 */
export function agentSurface(options: {
  readonly mode: ContextMode;
  readonly tools: readonly Tool[];
  readonly settings?: ContextToolSettings;
}): AgentSurface {
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

/** What the context-tool decision reads of a stored session. */
export interface SessionSize {
  /** The stored conversation, oldest first. */
  readonly messages: readonly Message[];
  /** Its runs; the instructions each loaded say whether that run was offered the context tools. */
  readonly runs: readonly { readonly instructionsHash?: string | undefined }[];
  /**
   * Ever longer latest parts of the session (messages and runs), when only they are in memory (a
   * session opened as a window): consulted first, so `messages` and `runs`, which may have to be
   * read, are read only when no recent part decides.
   */
  readonly recent?: Iterable<Pick<SessionSize, 'messages' | 'runs'>>;
}

/** What a stored session's next run is built from: see {@link sessionSurface}. */
export interface SessionSurfaceOptions {
  readonly tools: readonly Tool[];
  readonly settings?: ContextToolSettings;
  /** The policy of the run; its mode says which surface, its `compactTargetRatio` when the context tools start. */
  readonly policy: ContextPolicy;
  /** Its estimator measures the session; its capabilities give the window. */
  readonly model: ModelAdapter;
  readonly maxOutputTokens?: number;
  /** Loads the instructions a run with `systemPrompt` gets (the system prompt, then AGENTS.md). */
  readonly instructions: (systemPrompt: string) => Promise<InstructionSnapshot>;
  readonly session: SessionSize;
}

/**
 * What the next run of a stored session offers the model. The context tools cost every request
 * their schemas and prompt text, and only pay off once compaction can become relevant, so a
 * session gets them (in modes shadow and compact, when the settings allow them) once the whole
 * conversation, sent the way modes off and warn send it with the plain surface and an empty
 * current request, is estimated by the model's own estimator above `compactTargetRatio` of the
 * available input: the size a compaction brings a request back to, and below which no compacted
 * session ever sits. Until then the run gets the plain surface, byte-identical to what off and
 * warn send, so its cached prefix is the one of a client without context management. Once a run
 * of the session was offered them (its recorded instructions are the ones describing them), every
 * later run is too: the transcript only grows, and switching back would rewrite the cached prefix.
 */
export async function sessionSurface(options: SessionSurfaceOptions): Promise<AgentSurface> {
  const { tools, policy, model, session } = options;
  const offered = agentSurface({
    mode: policy.mode,
    tools,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
  });
  if (!offered.modelTools.checkpointNote && !offered.modelTools.requestCompaction) return offered;
  const plain = agentSurface({
    mode: policy.mode,
    tools,
    settings: { checkpointNote: false, requestCompaction: false },
  });
  const offeredInstructions = await options.instructions(offered.systemPrompt);
  const wasOffered = (runs: SessionSize['runs']) =>
    runs.some((run) => run.instructionsHash === offeredInstructions.hash);
  const exceeds = async (transcript: readonly Message[]): Promise<boolean> => {
    const view = await selectRequestView({
      transcript,
      policy: { ...policy, mode: 'warn' },
      model,
      fixed: {
        instructions: (await options.instructions(plain.systemPrompt)).text,
        currentRequest: { role: 'user', content: '' },
        tools: toolDefinitions(plain.advertised),
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
      },
    });
    return view.budget.estimate.tokens > view.budget.compactTargetTokens;
  };
  // The recent part decides when it can: a transcript whose latest messages alone are large is large.
  for (const recent of session.recent ?? [])
    if (wasOffered(recent.runs) || (await exceeds(recent.messages))) return offered;
  if (wasOffered(session.runs)) return offered;
  return (await exceeds(session.messages)) ? offered : plain;
}
