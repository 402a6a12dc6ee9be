import {
  resolveContextPolicy,
  runAgent,
  toolDefinitions,
  type ContextMode,
  type EventEnvelope,
  type InstructionSnapshot,
  type Message,
  type ModelAdapter,
  type RunResult,
  type ToolDefinition,
} from '@forge/core';
import { withRunIds, type CheckpointTranscriptEntry } from '@forge/core/checkpoint';
import type { Agent, AgentSurface } from '@forge/agent';
import { loadTranscript, OpaqueStateStore } from '@forge/persistence';
import { openSessionHandle, type SessionCompactionOptions, type SessionHandle } from '@forge/sessions';
import path from 'node:path';
import type { ExpandedTurn } from '../fixture/expand.js';
import { assembleEvalAgent } from '../workspace/tools.js';
import { withCheckpoint } from './model-wrappers.js';
import type { ModeContext, ModeSessionEnd } from './types.js';

/** How `runStored` runs a turn besides its mode. */
export interface StoredTurnOptions {
  readonly model?: ModelAdapter;
  /** The session's automatic compaction (strategy, caps, guard). */
  readonly compaction?: SessionCompactionOptions;
}

/** What a runner decided to send for a turn, when it chooses the view itself. */
export interface ChosenView {
  readonly history: readonly Message[];
  /** The checkpoint view to install for the turn's requests. */
  readonly checkpoint?: string;
}

/**
 * One stored Forge session of an eval run, through `@forge/persistence` exactly as the CLI keeps
 * one: every message appended durably, runs recorded, the lock held. `restart` closes it and
 * opens it again with fresh tools, as a new process would after a crash.
 */
export class EvalSession {
  private agent: Agent;
  private readonly produced: Message[] = [];
  /** Provider-native states, kept on disk in FORGE_HOME so they survive a restart as the CLI keeps them. */
  private readonly opaqueStates: OpaqueStateStore;

  private constructor(
    private readonly context: ModeContext,
    private handle: SessionHandle,
    agent: Agent,
  ) {
    this.agent = agent;
    this.opaqueStates = new OpaqueStateStore({
      directory: path.join(context.workspace.forgeHome, 'state', 'native-compaction'),
      persist: true,
    });
  }

  static async open(context: ModeContext): Promise<EvalSession> {
    const handle = await openSessionHandle({
      home: context.workspace.forgeHome,
      workspaceRoot: context.workspace.root,
      now: context.now,
      newRunId: context.newRunId,
    });
    return new EvalSession(context, handle, await assembleEvalAgent(context.fixture, context.workspace.root));
  }

  /** The canonical transcript as the store holds it now. */
  get messages(): readonly Message[] {
    return this.handle.messages;
  }

  /** The transcript with the run of each message, as checkpoints read it. */
  entries(): CheckpointTranscriptEntry[] {
    return withRunIds(this.handle.messages, this.handle.transcript().runs);
  }

  /**
   * What the next run in `mode` on `model` offers the model: the CLI's own decision (`sessionSurface`)
   * over this process's tools, with the product's default settings (both context tools allowed), for
   * the session as stored now.
   */
  surface(mode: ContextMode, model: ModelAdapter = this.context.model): Promise<AgentSurface> {
    return this.agent.surface(this.sessionSize(), model, resolveContextPolicy({ ...this.context.policy, mode }));
  }

  private sessionSize() {
    return { messages: this.handle.messages, runs: this.handle.transcript().runs };
  }

  /** The tool definitions every request of the next run in `mode` advertises. */
  async toolDefinitions(mode: ContextMode): Promise<ToolDefinition[]> {
    return toolDefinitions((await this.surface(mode)).advertised);
  }

  /** The instructions the next run in `mode` loads (the surface's system prompt, then AGENTS.md). */
  async instructions(mode: ContextMode): Promise<() => Promise<InstructionSnapshot>> {
    return this.agent.instructions(await this.surface(mode));
  }

  async restart(): Promise<readonly string[]> {
    const id = this.handle.id;
    await this.handle.close();
    this.handle = await openSessionHandle({
      home: this.context.workspace.forgeHome,
      sessionId: id,
      now: this.context.now,
      newRunId: this.context.newRunId,
    });
    this.agent = await assembleEvalAgent(this.context.fixture, this.context.workspace.root);
    return [];
  }

  private record(result: RunResult): RunResult {
    this.produced.push(...result.messages);
    return result;
  }

  private common(turn: ExpandedTurn, surface: AgentSurface) {
    const { fixture, policy } = this.context;
    return {
      request: turn.message,
      tools: surface.tools,
      approvals: this.agent.approvals,
      maxSteps: fixture.fixture.maxSteps,
      maxOutputTokens: fixture.fixture.model.maxOutputTokens,
      context: policy,
    };
  }

  /**
   * Runs a turn the way the product does: `SessionHandle.runTurn` with the context policy in
   * `mode`, so the session's own view (every message; the checkpoint and every message after it in
   * mode compact) and, with `compaction`, its automatic compaction (modes shadow and compact).
   */
  async runStored(
    turn: ExpandedTurn,
    mode: ContextMode,
    events: EventEnvelope[],
    options: StoredTurnOptions = {},
  ): Promise<RunResult> {
    const model = options.model ?? this.context.model;
    const { fixture, policy } = this.context;
    const turnOptions = await this.agent.storedTurn({
      request: turn.message,
      model,
      context: resolveContextPolicy({ ...policy, mode }),
      session: this.sessionSize(),
      ...(options.compaction === undefined
        ? {}
        : { compaction: { opaqueStates: this.opaqueStates, ...options.compaction } }),
      maxSteps: fixture.fixture.maxSteps,
      now: this.context.now,
      onEvent: (envelope) => events.push(envelope),
    });
    const turnResult = await this.handle.runTurn(turnOptions);
    return this.record(turnResult.result);
  }

  /** Hash of the session's current stored checkpoint, or a problem with it; undefined without one. */
  storedCheckpointHash(): string | undefined {
    const resolved = this.handle.currentCheckpoint();
    if (resolved === undefined) return undefined;
    return resolved.ok ? resolved.active.hash : `unusable: ${resolved.problem}`;
  }

  /** Runs a turn with a view the runner chose (a baseline's history, a harness-installed checkpoint). */
  async runWithView(
    turn: ExpandedTurn,
    mode: ContextMode,
    view: ChosenView,
    events: EventEnvelope[],
    model: ModelAdapter,
  ): Promise<RunResult> {
    const surface = await this.surface(mode, model);
    const common = this.common(turn, surface);
    const turnResult = await this.handle.runEngineTurn({
      mode: 'off',
      model: { provider: model.provider, modelId: model.modelId },
      instructions: this.agent.instructions(surface),
      onEvent: (envelope) => events.push(envelope as EventEnvelope),
      run: async (input) => ({
        result: await runAgent({
          ...common,
          model: withCheckpoint(model, view.checkpoint),
          context: { ...common.context, mode },
          instructions: input.instructions,
          session: { history: { messages: view.history }, id: input.sessionId, append: input.onMessage },
          runId: input.runId,
          onEvent: input.onEvent,
          now: this.context.now,
        }),
      }),
    });
    return this.record(turnResult.result);
  }

  async close(): Promise<ModeSessionEnd> {
    const id = this.handle.id;
    await this.handle.close();
    const stored = await loadTranscript(this.context.workspace.forgeHome, id);
    return { storedTranscript: stored.messages, producedMessages: this.produced };
  }
}
