import {
  InvalidInputError,
  type ApprovalDecision,
  type ApprovalGate,
  type ToolCallRequest,
  type ToolRisk,
} from '@forge/core';
import type { SandboxStatus } from './sandbox/command-sandbox.js';

/**
 * How much the agent may do without asking:
 * - `read-only`: reads run; writes and commands are refused.
 * - `ask`: reads run; every write and command is confirmed by the user.
 * - `workspace-write`: reads and writes inside the workspace run; commands are confirmed.
 * - `workspace-auto`: reads, writes and commands run without asking. Commands run without a shell,
 *   bounded by the timeout and output cap, inside the sandbox when one is in force; without one a
 *   command can do anything the user's account can.
 *
 * A call that asks for more than its tool's risk (`ToolCallRequest.escalation`: a command leaving
 * the sandbox) is always confirmed on its own, under every profile but `read-only`, which denies it.
 */
export type ApprovalProfile = 'read-only' | 'ask' | 'workspace-write' | 'workspace-auto';

/** What a profile does with a call of a given risk. */
export type ApprovalLevel = 'allow' | 'confirm' | 'deny';

/** The names of every profile, in order from most to least restrictive. */
export const approvalProfiles: readonly ApprovalProfile[] = ['read-only', 'ask', 'workspace-write', 'workspace-auto'];

const levels: Readonly<Record<ApprovalProfile, Readonly<Record<ToolRisk, ApprovalLevel>>>> = {
  'read-only': { read: 'allow', write: 'deny', execute: 'deny' },
  ask: { read: 'allow', write: 'confirm', execute: 'confirm' },
  'workspace-write': { read: 'allow', write: 'allow', execute: 'confirm' },
  'workspace-auto': { read: 'allow', write: 'allow', execute: 'allow' },
};

/** The level `profile` assigns to calls of `risk`. */
export function approvalLevel(profile: ApprovalProfile, risk: ToolRisk): ApprovalLevel {
  return levels[profile][risk];
}

/**
 * The user's answer to a confirmation: run this call once, allow this tool for the rest of the
 * session, or refuse — optionally saying why or what to do instead, which the model is shown.
 */
export type ConfirmAnswer =
  | { readonly kind: 'once' }
  | { readonly kind: 'session' }
  | { readonly kind: 'deny'; readonly feedback?: string };

/** Asks the user about one call. Should give up promptly when `signal` aborts. */
export type ConfirmCallback = (request: ToolCallRequest, signal: AbortSignal) => Promise<ConfirmAnswer>;

export interface ApprovalGateOptions {
  readonly profile: ApprovalProfile;
  /** Asks the user about confirm-level calls. Without it (non-interactive runs) they are denied. */
  readonly confirm?: ConfirmCallback;
  /** The sandbox commands run in, for `/permissions` (the gate itself decides only from the calls). */
  readonly sandbox?: SandboxStatus;
}

/**
 * An approval gate for one session. Session grants live only in this object's memory: there is
 * deliberately no way to save them or load them back, so a resumed session, a checkpoint or a
 * transcript can never restore a permission.
 */
export interface SessionApprovalGate extends ApprovalGate {
  readonly profile: ApprovalProfile;
  readonly sandbox?: SandboxStatus;
  /** Session grants, sorted: tool names, and `<tool>:<escalation>` (`run_command:network`) for leaving the sandbox. */
  grants(): string[];
  /** Withdraws a session grant (a tool name or a `<tool>:<escalation>`); true when there was one. */
  revoke(grant: string): boolean;
}

/** The session grant of an escalated call: kept apart from the tool's own, so allowing a tool never lets it leave the sandbox. */
export function escalationGrant(toolName: string, escalationId: string): string {
  return `${toolName}:${escalationId}`;
}

/** Creates the approval gate of one session. */
export function createApprovalGate(options: ApprovalGateOptions): SessionApprovalGate {
  const { profile, confirm } = options;
  if (!approvalProfiles.includes(profile)) {
    throw new InvalidInputError({
      message: `Unknown approval profile "${String(profile)}"; use one of: ${approvalProfiles.join(', ')}.`,
    });
  }
  const granted = new Set<string>();

  return {
    profile,
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
    grants: () => [...granted].sort(),
    revoke: (grant) => granted.delete(grant),
    async check(call, signal): Promise<ApprovalDecision> {
      if (call.escalation !== undefined) return checkEscalated(call, call.escalation.id, call.escalation.label, signal);
      const level = approvalLevel(profile, call.risk);
      if (level === 'allow') return { kind: 'allow' };
      if (level === 'deny') {
        return {
          kind: 'deny',
          reason: `the ${profile} approval profile does not allow ${call.risk} tools such as ${call.toolName}; the user can choose a profile that does`,
        };
      }
      if (granted.has(call.toolName)) return { kind: 'allow' };
      if (confirm === undefined) {
        return {
          kind: 'deny',
          reason:
            `${call.toolName} needs confirmation under the ${profile} profile and this session cannot ask (non-interactive)` +
            `; run interactively to approve it${call.risk === 'write' ? ', or use the workspace-write profile' : ''}`,
        };
      }
      const answer = await confirm(call, signal);
      switch (answer.kind) {
        case 'once':
          return { kind: 'allow' };
        case 'session':
          granted.add(call.toolName);
          return { kind: 'allow' };
        case 'deny': {
          const feedback = answer.feedback?.trim();
          return { kind: 'deny', reason: feedback ? `the user said: ${feedback}` : 'the user declined it' };
        }
      }
      // An answer of no known kind (a buggy prompt) must never let the call through.
      return { kind: 'deny', reason: 'the confirmation prompt gave no usable answer' };
    },
  };

  async function checkEscalated(
    call: ToolCallRequest,
    id: string,
    label: string,
    signal: AbortSignal,
  ): Promise<ApprovalDecision> {
    if (approvalLevel(profile, call.risk) === 'deny') {
      return {
        kind: 'deny',
        reason: `the ${profile} approval profile does not allow ${call.risk} tools such as ${call.toolName}, inside the sandbox or out of it`,
      };
    }
    const grant = escalationGrant(call.toolName, id);
    if (granted.has(grant)) return { kind: 'allow' };
    if (confirm === undefined) {
      return {
        kind: 'deny',
        reason:
          `this call asks to ${label}, which the user must approve, and this session cannot ask (non-interactive); ` +
          'run it without "sandbox", or the user can run Forge interactively, set sandbox.network, or choose --sandbox off',
      };
    }
    const answer = await confirm(call, signal);
    if (answer.kind === 'once') return { kind: 'allow' };
    if (answer.kind === 'session') {
      granted.add(grant);
      return { kind: 'allow' };
    }
    const feedback = answer.kind === 'deny' ? answer.feedback?.trim() : undefined;
    return { kind: 'deny', reason: feedback ? `the user said: ${feedback}` : `the user declined to let it ${label}` };
  }
}
