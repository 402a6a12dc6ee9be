import type { ContextMode } from '@forge/core';
import type { SessionSize } from '@forge/agent';
import type { McpServers } from '@forge/mcp';
import type { SessionCompactionOptions, SessionEngine } from '@forge/sessions';
import type { SessionApprovalGate } from '@forge/tools';
import type { ContextSubject } from '../context/context-report.js';

/** The engines a turn can run on (`--engine`). */
export const ENGINE_NAMES = ['native', 'codex'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

/**
 * Runs user turns for `forge run` and the REPL: a `SessionEngine` (Forge's own loop in
 * `native-engine.ts`, or Codex from `@forge/codex/session-engine`) plus what the CLI's commands
 * ask of the native one only.
 */
export interface TurnEngine extends SessionEngine<EngineName> {
  /** The approval gate of this process: the REPL's prompt, or `--approval`'s profile for `forge run`. */
  readonly approvals: SessionApprovalGate;
  /** The MCP servers Forge started for this process (native engine with servers configured). */
  readonly mcp?: McpServers;
  /**
   * Uses model `name` (`provider:id`) from the next turn on; throws a usage error for an unknown
   * or unusable model, keeping the current one. Absent when the engine cannot switch (Codex).
   */
  switchModel?(name: string): Promise<void>;
  /** Uses context mode `mode` from the next turn on. Absent when the engine has no context policy (Codex). */
  setContextMode?(mode: ContextMode): void;
  /**
   * The model, tools, instructions and context policy the next turn of `session` would use
   * (`/context`). Absent when the engine builds its own requests (Codex).
   */
  contextSubject?(session: SessionSize): Promise<ContextSubject>;
  /** How Forge compacts the sessions this engine runs (`context.compaction`); absent when the engine compacts itself. */
  sessionCompaction?(): Promise<SessionCompactionOptions>;
}
