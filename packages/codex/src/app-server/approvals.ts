import type { ApprovalGate, ToolCallRequest } from '@forge/core';

/** One change Codex wants to make to a file, as shown in an approval request. */
export interface CodexFileChangeSummary {
  readonly path: string;
  readonly kind: 'add' | 'delete' | 'update';
}

/** An approval Codex asks for before running a command or applying a patch. */
export type CodexApprovalRequest =
  | {
      readonly kind: 'command';
      readonly threadId: string;
      readonly turnId: string;
      readonly itemId: string;
      readonly command: string;
      readonly cwd: string | undefined;
      readonly reason: string | undefined;
    }
  | {
      readonly kind: 'fileChange';
      readonly threadId: string;
      readonly turnId: string;
      readonly itemId: string;
      /** The changes of the item, when Codex announced them before asking (it does in 0.169). */
      readonly changes: readonly CodexFileChangeSummary[];
      readonly reason: string | undefined;
    };

/** What Forge answers Codex: run it once, refuse it (Codex tells the model), or stop the turn. */
export type CodexApprovalDecision = 'accept' | 'decline' | 'cancel';

export type CodexApprovalHandler = (
  request: CodexApprovalRequest,
  signal: AbortSignal,
) => Promise<CodexApprovalDecision>;

/** Tool names under which Codex actions reach Forge's approval policy and transcript. */
export const codexToolNames = { command: 'codex_command', fileChange: 'codex_apply_patch' } as const;

/** The Forge tool-call request an approval gate sees for a Codex approval. */
export function toToolCallRequest(request: CodexApprovalRequest): ToolCallRequest {
  if (request.kind === 'command') {
    return {
      toolCallId: request.itemId,
      toolName: codexToolNames.command,
      input: { command: request.command, ...(request.cwd === undefined ? {} : { cwd: request.cwd }) },
      risk: 'execute',
      summary: `run ${request.command}`,
    };
  }
  const paths = request.changes.map((change) => `${change.kind} ${change.path}`);
  return {
    toolCallId: request.itemId,
    toolName: codexToolNames.fileChange,
    input: { changes: request.changes.map((change) => ({ path: change.path, kind: change.kind })) },
    risk: 'write',
    summary: paths.length === 0 ? 'apply a patch' : `apply a patch: ${paths.join(', ')}`,
  };
}

/**
 * Routes Codex approvals through a Forge approval gate: allowed → accept (this once, never for the
 * session), denied → decline. Without a gate every request is declined; approval is never implied.
 */
export function approvalHandlerFromGate(gate: ApprovalGate | undefined): CodexApprovalHandler {
  return async (request, signal) => {
    if (gate === undefined) return 'decline';
    const decision = await gate.check(toToolCallRequest(request), signal);
    return decision.kind === 'allow' ? 'accept' : 'decline';
  };
}
