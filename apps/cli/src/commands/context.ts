import { workspaceArtifactHashes } from '@forge/tools';
import {
  measureContext,
  renderContextReport,
  withRunIds,
  type CheckpointProvenance,
  type Message,
  type ModelRequest,
  type Tool,
} from '@forge/core';
import { conservativeMessageTokens, currentArtifactHashesFor, loadTranscript, resolveStoredCheckpoint, selectSessionView } from '@forge/persistence';
import { prepareAgent } from '../agent/agent-setup.js';
import { ExitCode } from '../exit-codes.js';
import { styleFor } from '../output/style.js';
import { chosenSessionId, sessionStoreError } from '../session/open-cli-session.js';
import { sessionChoice } from '../session/session-choice.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge context [--json]`: what the next request would cost, measured exactly as a run measures
 * it — the configured model and its window (with the window's source), the budget by category,
 * the reserve, the retained turns, free space and how the count was made. With `--resume <id>` or
 * `--last` the history is that session's recent view; otherwise it is a new conversation. Sends
 * nothing to any provider and writes nothing.
 */
export async function execute({ options, io }: CommandInvocation): Promise<number> {
  const choice = sessionChoice(options);
  const agent = await prepareAgent({ io, globals: options });
  try {
    const settings = await resolveSessionSettings({ io, globals: options });
    const id = choice.kind === 'resume' || choice.kind === 'last' ? await chosenSessionId(choice, settings, agent.root) : undefined;
    let history: readonly Message[] = [];
    let sessionMessages: number | undefined;
    let checkpoint: CheckpointProvenance | undefined;
    let checkpointView: string | undefined;
    if (id !== undefined) {
      let session;
      try {
        session = await loadTranscript(settings.forgeHome, id, { redactor: settings.redactor });
      } catch (error) {
        throw sessionStoreError(error);
      }
      // The same view a turn sends: the current checkpoint's rendered view and the recent tail after it.
      const transcript = withRunIds(session.messages, session.runs);
      const stored = session.checkpoint;
      const currentHashes = stored === undefined ? undefined : await currentArtifactHashesFor(resolveStoredCheckpoint(stored, transcript), workspaceArtifactHashes(agent.root));
      const view = selectSessionView({
        transcript,
        stored,
        ...(currentHashes === undefined ? {} : { currentHashes }),
        nativeStates: new Map(),
        redact: (text) => settings.redactor.redact(text),
        recentTailTokens: settings.recentTailTokens,
        countTokens: conservativeMessageTokens,
        model: agent.model,
      });
      history = view.history;
      checkpointView = view.checkpoint?.text;
      sessionMessages = session.messages.length;
      if (view.checkpoint !== undefined) {
        const { id, strategy, source } = view.checkpoint;
        checkpoint = { id, strategy, summarizedThrough: source.summarizedThrough, sourceHash: source.sourceHash };
      }
    }

    const instructions = await agent.instructions();
    const definitions = agent.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
    const request: ModelRequest = {
      instructions: instructions.text,
      ...(checkpointView === undefined ? {} : { checkpoint: checkpointView }),
      history,
      currentRequest: { role: 'user', content: '' },
      continuation: [],
      tools: definitions,
    };
    const report = await measureContext({
      model: agent.model,
      request,
      policy: agent.context,
      instructionsHash: instructions.hash,
      toolGroups: groupTools(agent.tools),
      ...(sessionMessages === undefined ? {} : { sessionMessages }),
      ...(checkpoint === undefined ? {} : { checkpoint }),
    });
    io.stdout.write(options.json === true ? `${JSON.stringify(report)}\n` : renderContextReport(report, { color: styleFor(io.stdout, io.env).enabled }));
    return ExitCode.ok;
  } finally {
    await agent.mcp?.close();
  }
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
