import { toolDefinitions } from '@forge/core';
import { workspaceArtifactHashes } from '@forge/tools';
import type { CompactionStrategySetting } from '@forge/core/compaction';
import { loadTranscript } from '@forge/persistence';
import { compactPreviewReport, openCompactionTrace } from '@forge/sessions';
import { prepareAgent, sessionSizeOf, type AgentSetup } from '../agent/agent-setup.js';
import { recordedThread } from '@forge/codex/recorded-thread';
import { prepareEngine } from '../engines/prepare-engine.js';
import { CliError, UsageError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import { styleFor } from '../output/style.js';
import { previewStoredCompaction, renderCompactPreview } from '../session/compact-preview.js';
import {
  compactionDocument,
  compactorDisclosure,
  disclosureLine,
  renderCompaction,
} from '../session/compaction-output.js';
import { loadStoredSession, openStoredSession } from '../session/open-cli-session.js';
import { resolveSessionTarget } from '../session/resolve-session.js';
import type { SessionSettings } from '../session/session-settings.js';
import type { CompactOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge compact (--session <id> | --last)`: compacts a stored session now. The completed turns
 * older than the recent tail become a checkpoint (deterministic `forge-state` unless `--strategy`
 * says otherwise), stored durably before it is used. No confirmation is asked: the transcript is
 * kept whole, only what later turns send in mode compact changes. `--dry-run` computes the same
 * compaction without a lock, a model call or a write: its numbers are the real compaction's.
 */
export async function execute({ options, io }: CommandInvocation<CompactOptions>): Promise<number> {
  if (options.dryRun === true && (options.strategy !== undefined || options.compactor !== undefined)) {
    throw new UsageError(
      '--dry-run previews the deterministic forge-state checkpoint, with no model call; leave out --strategy and --compactor, or compact without --dry-run',
    );
  }
  const { id, settings } = await resolveSessionTarget(
    io,
    options,
    `say which session to ${options.dryRun === true ? 'preview' : 'compact'}: --session <id> or --last (see 'forge sessions list')`,
  );
  if (options.dryRun !== true && (await onCodexThread(options, settings, id)))
    return compactThroughCodex(id, settings, { io, options });

  const agent = await prepareAgent({
    io,
    globals: options,
    ...(options.dryRun === true ? { purpose: 'measure' as const } : {}),
  });
  try {
    if (options.dryRun === true) return await preview(id, settings, agent, { io, json: options.json === true });
    const compaction = await agent.compaction(await strategyOf(options, agent));
    const handle = await openStoredSession(settings, id);
    const style = styleFor(io.stdout, io.env);
    try {
      const trace = await openCompactionTrace({
        forgeHome: settings.forgeHome,
        sessionId: handle.id,
        redactor: settings.redactor,
      });
      const { focus } = options;
      // Estimated against what the next turn would advertise and load.
      const surface = await agent.surface(sessionSizeOf(handle));
      const result = await handle
        .compact({
          model: agent.model,
          instructions: agent.instructions(surface),
          tools: toolDefinitions(surface.advertised),
          context: agent.context,
          compaction,
          artifactHashes: workspaceArtifactHashes(agent.root),
          ...(focus === undefined ? {} : { focus }),
          onEvent: (event) => {
            trace.listener(event);
            const compactor = compactorDisclosure(event);
            if (compactor !== undefined) io.stderr.write(`forge: ${disclosureLine(compactor)}\n`);
          },
        })
        .finally(async () => {
          const problem = await trace.close();
          if (problem !== undefined) io.stderr.write(`forge: warning: ${problem}\n`);
        });
      io.stdout.write(
        options.json === true
          ? `${JSON.stringify(compactionDocument(handle.id, result))}\n`
          : renderCompaction(handle.id, result, style),
      );
      return result.outcome.kind === 'failed' || result.outcome.kind === 'limit' ? ExitCode.failure : ExitCode.ok;
    } finally {
      await handle.close();
    }
  } finally {
    await agent.mcp?.close();
  }
}

/**
 * True when the session is compacted by Codex: `--engine codex`, or no `--engine` and the
 * session's latest run was a Codex turn on a thread (`--engine native` makes Forge compact it).
 */
async function onCodexThread(options: CompactOptions, settings: SessionSettings, id: string): Promise<boolean> {
  if (options.engine !== undefined) return options.engine === 'codex';
  // A strategy or compactor asks for Forge's own compaction.
  if (options.strategy !== undefined || options.compactor !== undefined) return false;
  try {
    return (
      recordedThread((await loadTranscript(settings.forgeHome, id, { redactor: settings.redactor })).runs.at(-1)) !==
      undefined
    );
  } catch {
    // Forge's own path reports a missing or damaged session.
    return false;
  }
}

/** Asks Codex to compact the session's thread (`thread/compact/start`); recorded in the session as an engine-owned compaction. */
async function compactThroughCodex(
  id: string,
  settings: SessionSettings,
  context: { readonly io: CommandInvocation['io']; readonly options: CompactOptions },
): Promise<number> {
  const { io, options } = context;
  // The same globals object: its configuration is loaded (and its warnings printed) once.
  const engine = await prepareEngine({ io, globals: options, engine: 'codex' });
  try {
    if (engine.compact === undefined) throw new Error('The Codex engine cannot compact; this is a bug in Forge.');
    await engine.start();
    const handle = await openStoredSession(settings, id);
    try {
      const outcome = await engine.compact(handle);
      if (options.json === true) io.stdout.write(`${JSON.stringify({ sessionId: id, engine: 'codex', outcome })}\n`);
      else if (outcome.kind === 'compacted') {
        io.stdout.write(
          `Codex compacted session ${id} on its thread ${outcome.threadId} (compaction ${outcome.itemId}); engine-owned: Codex decides what it keeps.\n`,
        );
      } else io.stdout.write(`Nothing to compact in session ${id}: ${outcome.reason}.\n`);
      return outcome.kind === 'compacted' ? ExitCode.ok : ExitCode.failure;
    } finally {
      await handle.close();
    }
  } finally {
    await engine.close();
  }
}

/** `--dry-run`: the compaction `forge compact` would make now, computed the same way with the same model and tools; no lock, no model call, no write. */
async function preview(
  id: string,
  settings: SessionSettings,
  agent: AgentSetup,
  output: { readonly io: CommandInvocation['io']; readonly json: boolean },
): Promise<number> {
  const session = await loadStoredSession(settings, id);
  const result = await previewStoredCompaction(session, agent, settings.redactor);
  const report = await compactPreviewReport({
    sessionId: session.id,
    messages: session.messages,
    summarizedThrough: session.checkpoint?.source.summarizedThrough,
    recentTailTokens: agent.context.recentTailTokens,
    model: agent.model,
    result,
  });
  output.io.stdout.write(
    output.json
      ? `${JSON.stringify(report)}\n`
      : renderCompactPreview(report, styleFor(output.io.stdout, output.io.env)),
  );
  return ExitCode.ok;
}

/**
 * `--strategy` and `--compactor`, else `context.compaction` (undefined): a compactor model is
 * only ever the one named; nothing falls back to another provider.
 */
async function strategyOf(options: CompactOptions, agent: AgentSetup): Promise<CompactionStrategySetting | undefined> {
  const { compactor } = options;
  if (options.strategy === undefined && compactor === undefined) return undefined;
  const name = options.strategy ?? 'forge-state';
  if (name !== 'model-structured') {
    if (compactor !== undefined) throw new UsageError('--compactor only applies to --strategy model-structured');
    return name === 'provider-native' ? { kind: 'provider-native' } : { kind: 'forge-state' };
  }
  if (compactor === undefined) {
    throw new UsageError(
      '--strategy model-structured needs --compactor <provider:id>: the model that receives the conversation to summarize (it is never chosen for you)',
    );
  }
  try {
    return { kind: 'model-structured', compactor: await agent.resolveModel(compactor) };
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new UsageError(`--compactor ${compactor}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
