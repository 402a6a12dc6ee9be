import type { ContextMode, Message } from '@forge/core';
import type { SessionSize } from '@forge/agent';
import { listSessions, type SessionSummary } from '@forge/persistence';
import {
  currentArtifactHashesFor,
  renderActiveCheckpoint,
  type ArtifactHashSource,
  type EngineCompactOutcome,
  type EngineTurn,
  type ResolvedCheckpoint,
  type SessionCompactOptions,
  type SessionCompactResult,
  type SessionEngineResult,
  type SessionHandle,
  type SessionTurnWarning,
  type SessionView,
} from '@forge/sessions';
import type { TurnEngine } from '../engines/turn-engine.js';
import { openCliSession, sessionStoreError } from '../session/open-cli-session.js';
import { checkSessionId, type SessionChoice } from '../session/session-choice.js';
import { resolveSessionReference } from '../session/resolve-session.js';
import { conversationRecap, RECAP_REQUESTS, requestCount } from '../session/session-recap.js';
import { sessionSizeOf } from '../agent/agent-setup.js';
import type { SessionSettings } from '../session/session-settings.js';

/** Bytes of the log before a window read in turn for the recap of a resumed session. */
const RECAP_BYTES = [64 * 1024, 1024 * 1024, 16 * 1024 * 1024];

/** How the REPL tells the user to find a session. */
const REPL_SESSIONS_HINT = '/sessions lists them';

/** What switching sessions tells the user. */
export interface SessionSwitch {
  readonly id: string;
  readonly messages: number;
  readonly warnings: readonly SessionTurnWarning[];
  /** Set when the session was recorded in another workspace than the REPL's. */
  readonly otherWorkspace: string | undefined;
  /** A few lines saying where the conversation stands (`conversationRecap`). */
  readonly recap: readonly string[];
}

/**
 * The REPL's session: one open `SessionHandle` (its lock held) at a time, replaced by `/resume`
 * and `/new`. In mode compact a resumed session is opened as a window (its checkpoint and what
 * follows); what needs the whole transcript reads it then.
 */
export class ReplSession {
  readonly settings: SessionSettings;
  private readonly workspaceRoot: string;
  private readonly window: () => boolean;
  private handle: SessionHandle;

  private constructor(parts: {
    settings: SessionSettings;
    workspaceRoot: string;
    window: () => boolean;
    handle: SessionHandle;
  }) {
    this.settings = parts.settings;
    this.workspaceRoot = parts.workspaceRoot;
    this.window = parts.window;
    this.handle = parts.handle;
  }

  /** Opens the session the REPL starts in; store errors become one-line CLI errors. */
  static async open(options: {
    readonly choice: SessionChoice;
    readonly settings: SessionSettings;
    readonly workspaceRoot: string;
    /** Whether a session opened now is opened as a window (mode compact). */
    readonly window: () => boolean;
  }): Promise<ReplSession> {
    const handle = await openCliSession({
      choice: options.choice,
      settings: options.settings,
      workspaceRoot: options.workspaceRoot,
      window: options.window(),
    });
    if (handle === undefined) throw new Error('The REPL always keeps a session; this is a bug in Forge.');
    return new ReplSession({ ...options, handle });
  }

  get id(): string {
    return this.handle.id;
  }

  /** The stored transcript, oldest first (read whole if the session was opened as a window). */
  get messages(): readonly Message[] {
    return this.handle.messages;
  }

  /** Messages in the stored transcript. */
  get messageCount(): number {
    const { loaded } = this.handle;
    return loaded.firstMessage + loaded.messages.length;
  }

  /**
   * The transcript `view` was chosen from, as `measureNextRequest` takes it: for a window, only
   * the messages a view with a checkpoint reads (array holes before them); else every message.
   */
  transcriptFor(view: Pick<SessionView, 'checkpoint' | 'nativeState' | 'tailStart'>): readonly Message[] {
    const { loaded } = this.handle;
    if (loaded.firstMessage === 0 || view.checkpoint === undefined || view.nativeState !== undefined)
      return this.handle.messages;
    if (view.tailStart < loaded.firstMessage) return this.handle.messages;
    const messages: Message[] = [];
    messages.length = loaded.firstMessage;
    for (const message of loaded.messages) messages.push(message);
    return messages;
  }

  /** The model the latest run of the session that named one ran on, as the runs `modelSwitchNote` reads. */
  get runModels(): readonly { readonly model?: { readonly provider: string; readonly modelId: string } | undefined }[] {
    return [{ model: this.handle.loaded.lastModel }];
  }

  /** What decides whether the next turn offers the context tools: the messages and the runs. */
  get size(): SessionSize {
    return sessionSizeOf(this.handle);
  }

  /** The facts about the current session the banner and `/resume` print. */
  describe(): SessionSwitch {
    const { loaded } = this.handle;
    const workspace = loaded.workspaceRoot;
    return {
      id: this.handle.id,
      messages: this.messageCount,
      warnings: this.handle.openWarnings,
      otherWorkspace: workspace !== null && workspace !== this.workspaceRoot ? workspace : undefined,
      recap: this.recap(),
    };
  }

  /**
   * The recap of the conversation from its latest messages: those in memory, then more of the log
   * before them while they hold fewer requests than the recap shows (the whole log at worst).
   */
  private recap(): string[] {
    const { loaded } = this.handle;
    let messages = loaded.messages;
    let before = loaded.requestsBefore;
    for (const bytes of RECAP_BYTES) {
      if (before === 0 || requestCount(messages) >= RECAP_REQUESTS) break;
      const earlier = loaded.before?.(bytes);
      if (earlier === undefined) break;
      messages = [...earlier, ...loaded.messages];
      before = loaded.requestsBefore - requestCount(earlier);
    }
    if (before > 0 && requestCount(messages) < RECAP_REQUESTS) return conversationRecap(this.handle.messages);
    return conversationRecap(messages, before);
  }

  /** End of the range the current checkpoint summarizes, when the session has one. */
  get summarizedThrough(): number | undefined {
    return this.handle.loaded.checkpoint?.source.summarizedThrough;
  }

  /** Compacts the current session now (`/compact`; with `preview`, `/compact --dry-run`); the transcript is kept whole. */
  async compact(options: SessionCompactOptions & { readonly preview?: boolean }): Promise<SessionCompactResult> {
    return this.handle.compact(options);
  }

  /** Compacts the current session through an engine that owns its context (`/compact` on Codex). */
  async compactOnEngine(engine: TurnEngine): Promise<EngineCompactOutcome> {
    if (engine.compact === undefined)
      throw new Error(`The ${engine.name} engine does not compact its own context; this is a bug in Forge.`);
    return engine.compact(this.handle);
  }

  /**
   * The current checkpoint and its rendered view (`/checkpoint`), facts judged against the files
   * `artifactHashes` reports and files in hand read through it; undefined when there is none.
   */
  async checkpoint(
    artifactHashes: ArtifactHashSource,
  ): Promise<{ readonly resolved: ResolvedCheckpoint; readonly view: string | undefined } | undefined> {
    const resolved = this.handle.currentCheckpoint();
    if (resolved === undefined) return undefined;
    const currentHashes = await currentArtifactHashesFor(resolved, artifactHashes);
    const workingSet = await this.handle.readWorkingSet(artifactHashes);
    return {
      resolved,
      view: resolved.ok
        ? renderActiveCheckpoint(resolved.active, this.handle.entries(), undefined, currentHashes, workingSet)
        : undefined,
    };
  }

  /**
   * What the next turn on `model` in `mode` would send of this session (`/context`): the current
   * checkpoint's view in mode compact (facts judged against the files `artifactHashes` reports)
   * and every message after it; every message in the other modes.
   */
  async nextView(
    model: { readonly provider: string; readonly modelId: string },
    mode: ContextMode,
    artifactHashes: ArtifactHashSource,
  ): Promise<SessionView> {
    const currentHashes = await currentArtifactHashesFor(this.handle.currentCheckpoint(), artifactHashes);
    const workingSet = mode === 'compact' ? await this.handle.readWorkingSet(artifactHashes) : undefined;
    return this.handle.selectView({
      mode,
      model,
      ...(currentHashes === undefined ? {} : { currentHashes }),
      ...(workingSet === undefined ? {} : { workingSet }),
    });
  }

  get resumed(): boolean {
    return !this.handle.created;
  }

  /** Runs one turn on `engine` in the current session; the recent view of its transcript is the history. */
  async runTurn(engine: TurnEngine, turn: EngineTurn): Promise<SessionEngineResult> {
    return engine.runTurn(this.handle, turn);
  }

  /** Every stored session, most recent first. */
  list(): Promise<SessionSummary[]> {
    return listSessions(this.settings.forgeHome);
  }

  /** The stored session `text` names: its id, or the start of exactly one id (errors point at `/sessions`). */
  resolve(text: string): Promise<string> {
    return resolveSessionReference(
      { kind: 'id', text, source: '/resume' },
      { forgeHome: this.settings.forgeHome, workspaceRoot: this.workspaceRoot, listHint: REPL_SESSIONS_HINT },
    );
  }

  /** Switches to session `id`; the current one stays open if that fails. */
  async resume(id: string): Promise<SessionSwitch> {
    return this.switchTo({ kind: 'resume', id: checkSessionId(id, '/resume', REPL_SESSIONS_HINT), source: '/resume' });
  }

  /** Starts a new, empty session for the workspace. */
  async startNew(): Promise<SessionSwitch> {
    return this.switchTo({ kind: 'new' });
  }

  /** Releases the lock; a session this REPL created and never used is not kept. */
  close(): Promise<void> {
    return this.handle.close({ discardIfEmpty: true });
  }

  private async switchTo(choice: SessionChoice): Promise<SessionSwitch> {
    let next: SessionHandle | undefined;
    try {
      next = await openCliSession({
        choice,
        settings: this.settings,
        workspaceRoot: this.workspaceRoot,
        listHint: REPL_SESSIONS_HINT,
        window: this.window(),
      });
    } catch (error) {
      throw sessionStoreError(error);
    }
    if (next === undefined) throw new Error('The REPL always keeps a session; this is a bug in Forge.');
    const previous = this.handle;
    this.handle = next;
    await previous.close({ discardIfEmpty: true });
    return this.describe();
  }
}
