import type { JsonObject, JsonValue } from '../json.js';
import type { ToolResultOutput } from '../messages.js';
import type { ToolDefinition } from '../model/adapter.js';

/** How much a tool can change: approval policies decide per risk level. */
export type ToolRisk = 'read' | 'write' | 'execute';

export interface ToolContext {
  readonly toolCallId: string;
  /** Aborted when the run is cancelled; long-running tools must stop promptly. */
  readonly signal: AbortSignal;
}

export interface ToolExecutionResult {
  readonly output: ToolResultOutput;
  /** Host-computed facts (content hash, exit code, path) stored beside the result; never model-written. */
  readonly metadata?: JsonObject;
  /**
   * One line for people saying what the call did (`edited src/x.ts (+3 −1)`, `ran pnpm test → exit 1`).
   * It goes into the `tool.call.completed` event, not to the model.
   */
  readonly summary?: string;
}

/**
 * A tool the agent loop can call. `execute` validates its own input and reports problems the
 * model can fix as `{ type: 'error-text' }` output; it throws only for failures of the host.
 */
export interface Tool extends ToolDefinition {
  readonly risk: ToolRisk;
  /**
   * Looks at a call before anyone is asked to approve it, without changing anything. Returns why
   * the call cannot do what it asks (an edit whose text is ambiguous or missing, a file it has not
   * read): the call is then refused to the model with that reason and never shown for approval.
   * Undefined lets the call go on to the approval gate and `execute`, which checks again.
   */
  check?(input: JsonValue, context: ToolContext): Promise<string | undefined>;
  execute(input: JsonValue, context: ToolContext): Promise<ToolExecutionResult>;
  /** One line saying what this call would do, shown in approval prompts and events. */
  describe?(input: JsonValue): string;
  /**
   * What this call asks for beyond the tool's `risk` (a command that leaves the sandbox), or
   * undefined when nothing. A gate approves such a call on its own, whatever its profile allows.
   */
  escalation?(input: JsonValue): ToolEscalation | undefined;
}

/** A call's request for more than its tool's risk, approved on its own (see `Tool.escalation`). */
export interface ToolEscalation {
  /** Stable name of what is asked for (`network`, `no-sandbox`); a session grant is kept per tool and id. */
  readonly id: string;
  /** What the user is asked to allow, e.g. "leave the sandbox: network on". */
  readonly label: string;
}

export interface ToolCallRequest {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: JsonValue;
  readonly risk: ToolRisk;
  readonly summary: string;
  /** What the call asks for beyond `risk`, from `Tool.escalation`. */
  readonly escalation?: ToolEscalation;
}

export type ApprovalDecision = { readonly kind: 'allow' } | { readonly kind: 'deny'; readonly reason: string };

/**
 * Decides whether one tool call may run. Grants live only in the gate's memory: nothing from
 * history, a checkpoint or a session file can restore them.
 */
export interface ApprovalGate {
  check(call: ToolCallRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

/** What a model is sent for `tools`: each one's name, description and input schema, and nothing of how it runs. */
export function toolDefinitions(tools: Iterable<Tool>): ToolDefinition[] {
  return [...tools].map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
}
