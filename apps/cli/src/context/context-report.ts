import {
  toolDefinitions,
  type ContextPolicy,
  type InstructionSnapshot,
  type Message,
  type ModelAdapter,
  type Tool,
} from '@forge/core';
import { measureContext, type CheckpointProvenance, type ContextReport, type SessionCost } from '@forge/core/budget';
import { estimateRequestCost } from '@forge/core/pricing';
import { selectRequestView, summarizeView } from '@forge/core/view';
import { requestViewCheckpoint, type SessionCompactResult, type SessionView } from '@forge/sessions';

/** What the next request is made of besides the history: `forge context` and `/context` measure it. */
export interface ContextSubject {
  readonly model: ModelAdapter;
  /** The built-in tools, then the tools of each MCP server. */
  readonly tools: readonly Tool[];
  /** Loads the instructions as the next turn would. */
  readonly instructions: () => Promise<InstructionSnapshot>;
  /** The context policy of the next turn. */
  readonly context: ContextPolicy;
}

/** The session part of the next request: its stored transcript and the session's view of it (for the mode of `subject`). */
export interface ContextSessionView {
  readonly transcript: readonly Message[];
  readonly view: Pick<SessionView, 'checkpoint' | 'nativeState' | 'unusedCheckpoint'>;
}

/** How the next request is priced, beyond what `subject` and the session say. */
export interface NextRequestPricing {
  /**
   * Tokens at the start of the request the provider still caches from the last request sent (the
   * REPL knows them from that request's usage; 0 once the prefix changed). Default: the best case.
   */
  readonly sharedPrefixTokens?: number;
  /** The compaction the next step would make first, previewed (no write, no model call): priced instead of a request that is never sent. */
  readonly previewCompaction?: () => Promise<SessionCompactResult>;
}

/**
 * Measures the next request of `subject` without sending it, as core's view rule builds it
 * (`selectRequestView`): its instructions, the session's checkpoint (mode compact) and every
 * stored message after it (none for a new conversation), an empty current request and the tools
 * grouped into built-in and one group per MCP server; with prices, what it will cost (and
 * `sessionCost`, what the session has cost so far). Writes nothing.
 */
export async function measureNextRequest(
  subject: ContextSubject,
  session?: ContextSessionView,
  sessionCost?: SessionCost,
  pricing: NextRequestPricing = {},
): Promise<ContextReport> {
  const instructions = await subject.instructions();
  const checkpoint = session === undefined ? undefined : requestViewCheckpoint(session.view);
  const view = await selectRequestView({
    transcript: session?.transcript ?? [],
    ...(checkpoint === undefined ? {} : { checkpoint }),
    policy: subject.context,
    model: subject.model,
    fixed: {
      instructions: instructions.text,
      currentRequest: { role: 'user', content: '' },
      tools: toolDefinitions(subject.tools),
    },
  });
  let provenance: CheckpointProvenance | undefined;
  const sent = session?.view.checkpoint;
  if (sent !== undefined) {
    provenance = {
      id: sent.id,
      strategy: sent.strategy,
      summarizedThrough: sent.source.summarizedThrough,
      sourceHash: sent.source.sourceHash,
    };
  } else if (session?.view.unusedCheckpoint !== undefined) {
    const { id, strategy, mode } = session.view.unusedCheckpoint;
    provenance = { id, strategy, unusedInMode: mode };
  }
  const report = await measureContext({
    model: subject.model,
    request: view.request,
    estimate: view.budget.estimate,
    policy: subject.context,
    instructionsHash: instructions.hash,
    toolGroups: groupTools(subject.tools),
    ...(session === undefined
      ? {}
      : {
          sessionMessages: session.transcript.length,
          view: summarizeView({
            stored: view.end,
            covered: view.coveredThrough,
            verbatim: view.end - view.tailStart,
            ...(checkpoint === undefined ? {} : { checkpointId: checkpoint.id }),
          }),
        }),
    ...(provenance === undefined ? {} : { checkpoint: provenance }),
    ...(sessionCost === undefined ? {} : { sessionCost }),
    ...(pricing.sharedPrefixTokens === undefined ? {} : { sharedPrefixTokens: pricing.sharedPrefixTokens }),
  });
  return priceAfterCompaction(report, subject.model, pricing.previewCompaction);
}

/**
 * A request the next step compacts before sending is never sent as measured: price the request
 * the compaction leaves instead, with a cold cache (the new checkpoint starts a new prefix).
 */
async function priceAfterCompaction(
  report: ContextReport,
  model: ModelAdapter,
  preview: NextRequestPricing['previewCompaction'],
): Promise<ContextReport> {
  const cost = report.nextRequestCost;
  if (report.decision.kind !== 'compact' || preview === undefined || cost === undefined) return report;
  const { outcome } = await preview();
  if (outcome.kind !== 'compacted') return report;
  const { promptCache } = model.capabilities;
  return {
    ...report,
    nextRequestCost: estimateRequestCost({
      prices: cost.prices,
      inputTokens: outcome.tokensAfter,
      sharedPrefixTokens: 0,
      reservedOutputTokens: cost.reservedOutputTokens,
      ...(promptCache === undefined ? {} : { promptCache }),
    }),
    compactedBeforeSending: { tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter },
  };
}
/** Built-in tools in one group, each MCP server's tools in another. */
function groupTools(tools: readonly Tool[]): { readonly name: string; readonly tools: Tool[] }[] {
  const groups = new Map<string, Tool[]>();
  for (const tool of tools) {
    const server = (tool as Tool & { readonly mcpServer?: unknown }).mcpServer;
    const name = typeof server === 'string' ? `mcp:${server}` : 'built-in';
    groups.set(name, [...(groups.get(name) ?? []), tool]);
  }
  return [...groups].map(([name, members]) => ({ name, tools: members }));
}
