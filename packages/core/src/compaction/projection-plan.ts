import type { ContextBudget } from '../budget/budget.js';
import type { ContextPolicy } from '../budget/policy.js';
import type { Message, ToolResultPart } from '../messages.js';
import type { TokenEstimate } from '../model/adapter.js';
import {
  projectToolOutput,
  type ProjectionCandidate,
  type ToolOutputProjectionOptions,
} from './tool-output-projection.js';

/** Tokens of one tool output sent verbatim and in its projected form, each as a one-result tool message (framing included). */
export interface OutputSizes {
  readonly verbatim: number;
  readonly projected: number;
}

/** Tokens the newest distinct tool outputs are protected up to: `protectedToolOutputRatio` of the request's compaction target. */
export function protectedToolOutputTokens(
  policy: Pick<ContextPolicy, 'protectedToolOutputRatio'>,
  budget: Pick<ContextBudget, 'compactTargetTokens'>,
): number {
  return Math.floor(budget.compactTargetTokens * policy.protectedToolOutputRatio);
}

export interface ProjectionChoiceInput {
  /** Outputs not projected yet, in transcript order (see `projectionCandidates`). */
  readonly candidates: readonly ProjectionCandidate[];
  readonly sizes: ReadonlyMap<string, OutputSizes>;
  /** Tokens the request is above its target: projection stops once it has saved this many. */
  readonly excessTokens: number;
  /** The newest distinct outputs are kept verbatim up to this many tokens. */
  readonly protectedTokens: number;
}

export interface ProjectionChoice {
  /** Outputs to project, in the order they were picked. */
  readonly ids: readonly string[];
  /** Outputs kept verbatim by the protected budget. */
  readonly protectedIds: readonly string[];
  /** Estimated tokens the picked outputs save. */
  readonly savedTokens: number;
}

/**
 * Which outputs to project, a pure function of its input (so the same view gives the same
 * choice, step after step and run after run): superseded outputs first, oldest first; then the
 * others, oldest first; never the newest distinct outputs that fit in `protectedTokens` (newest
 * first, one per subject, stopping at the first that does not fit; a superseded output is never
 * protected). It stops as soon as the picked outputs save `excessTokens`.
 */
export function chooseProjection(input: ProjectionChoiceInput): ProjectionChoice {
  const savingOf = (id: string) => {
    const sizes = input.sizes.get(id);
    return sizes === undefined ? 0 : Math.max(0, sizes.verbatim - sizes.projected);
  };
  const protectedIds = new Set<string>();
  const subjects = new Set<string>();
  let kept = 0;
  for (let index = input.candidates.length - 1; index >= 0; index -= 1) {
    const candidate = input.candidates[index] as ProjectionCandidate;
    if (candidate.supersededBy !== undefined || subjects.has(candidate.subject)) continue;
    subjects.add(candidate.subject);
    const tokens = input.sizes.get(candidate.toolCallId)?.verbatim ?? 0;
    if (kept + tokens > input.protectedTokens) break;
    kept += tokens;
    protectedIds.add(candidate.toolCallId);
  }
  const superseded = input.candidates.filter((candidate) => candidate.supersededBy !== undefined);
  const others = input.candidates.filter(
    (candidate) => candidate.supersededBy === undefined && !protectedIds.has(candidate.toolCallId),
  );
  const ids: string[] = [];
  let savedTokens = 0;
  for (const candidate of [...superseded, ...others]) {
    if (savedTokens >= input.excessTokens) break;
    const saving = savingOf(candidate.toolCallId);
    if (saving === 0) continue;
    ids.push(candidate.toolCallId);
    savedTokens += saving;
  }
  return { ids, protectedIds: [...protectedIds], savedTokens };
}

/**
 * Tokens of history and continuation a request sends verbatim: the estimate's history and
 * continuation less the projected forms of the outputs it sends projected.
 */
export function keptVerbatimTokens(estimate: TokenEstimate, projectedFormTokens = 0): number {
  return Math.max(0, estimate.categories.history + estimate.categories.continuation - projectedFormTokens);
}

/**
 * Sizes of tool outputs by the adapter's own counter, measured once per message (messages are
 * never rewritten, so a size found stays true) and all of a view's new messages in one call.
 */
export class OutputSizeCache {
  private readonly known = new WeakMap<Message, ReadonlyMap<string, OutputSizes>>();

  constructor(
    private readonly count: (messages: readonly Message[]) => Promise<readonly number[]>,
    private readonly options: ToolOutputProjectionOptions = {},
  ) {}

  /** Sizes of every output of the tool messages at `indexes` of `messages`, by call id. */
  async of(messages: readonly Message[], indexes: Iterable<number>): Promise<Map<string, OutputSizes>> {
    const sizes = new Map<string, OutputSizes>();
    const missing: { readonly message: Message; readonly parts: readonly ToolResultPart[] }[] = [];
    for (const index of new Set(indexes)) {
      const message = messages[index];
      if (message?.role !== 'tool') continue;
      const known = this.known.get(message);
      if (known === undefined) missing.push({ message, parts: message.content });
      else for (const [id, size] of known) sizes.set(id, size);
    }
    if (missing.length === 0) return sizes;
    const pieces: Message[] = [];
    for (const { message, parts } of missing) {
      for (const part of parts) {
        pieces.push(parts.length === 1 ? message : { role: 'tool', content: [part] });
        pieces.push({ role: 'tool', content: [projectToolOutput(part, this.options)] });
      }
    }
    const counts = await this.count(pieces);
    let at = 0;
    for (const { message, parts } of missing) {
      const found = new Map<string, OutputSizes>();
      for (const part of parts) {
        found.set(part.toolCallId, { verbatim: counts[at] ?? 0, projected: counts[at + 1] ?? 0 });
        at += 2;
      }
      this.known.set(message, found);
      for (const [id, size] of found) sizes.set(id, size);
    }
    return sizes;
  }
}
