import {
  measureContext,
  type CheckpointProvenance,
  type ContextPolicy,
  type ContextReport,
  type InstructionSnapshot,
  type ModelAdapter,
  type ModelRequest,
  type SessionCost,
  type Tool,
} from '@forge/core';
import type { SessionView } from '@forge/persistence';

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

/** The session part of the next request: the view a turn would send and the size of the whole transcript. */
export interface ContextSessionView {
  readonly view: Pick<SessionView, 'history' | 'checkpoint'>;
  readonly sessionMessages: number;
}

/**
 * Measures the next request of `subject` without sending it: its instructions, the session's view
 * (checkpoint and recent tail; none for a new conversation), an empty current request and the
 * tools grouped into built-in and one group per MCP server; with prices, what it will cost (and
 * `sessionCost`, what the session has cost so far). Writes nothing.
 */
export async function measureNextRequest(subject: ContextSubject, session?: ContextSessionView, sessionCost?: SessionCost): Promise<ContextReport> {
  const instructions = await subject.instructions();
  const checkpointView = session?.view.checkpoint;
  const request: ModelRequest = {
    instructions: instructions.text,
    ...(checkpointView === undefined ? {} : { checkpoint: checkpointView.text }),
    history: session?.view.history ?? [],
    currentRequest: { role: 'user', content: '' },
    continuation: [],
    tools: subject.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  };
  let checkpoint: CheckpointProvenance | undefined;
  if (checkpointView !== undefined) {
    const { id, strategy, source } = checkpointView;
    checkpoint = { id, strategy, summarizedThrough: source.summarizedThrough, sourceHash: source.sourceHash };
  }
  return measureContext({
    model: subject.model,
    request,
    policy: subject.context,
    instructionsHash: instructions.hash,
    toolGroups: groupTools(subject.tools),
    ...(session === undefined ? {} : { sessionMessages: session.sessionMessages }),
    ...(checkpoint === undefined ? {} : { checkpoint }),
    ...(sessionCost === undefined ? {} : { sessionCost }),
  });
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
