import type { ContextBudget } from '../budget/budget.js';
import type { JsonObject, JsonValue } from '../json.js';
import type { TokenCategories } from '../model/adapter.js';
import type { Tool, ToolExecutionResult } from '../tools/tool.js';

export const REQUEST_COMPACTION_TOOL = 'request_compaction';

/** What the model may know about its context: numbers only, read-only. */
export type ContextUsageSnapshot = {
  readonly usedTokens: number;
  readonly availableInputTokens: number;
  /** usedTokens / availableInputTokens, in whole percent. */
  readonly percentUsed: number;
  readonly categories: TokenCategories;
};

const MAX_REASON_CHARS = 300;

/**
 * Connects `request_compaction` to the run: the tool leaves a request here, and `runAgent` takes it
 * at the next safe boundary (before the next model step, after every tool result is recorded).
 * The run updates the usage snapshot after every budget estimate.
 */
export class CompactionRequestChannel {
  private pending: string | undefined;
  private latest: ContextUsageSnapshot | undefined;

  /** Records a request; a second one before the boundary replaces the first. */
  request(reason: string): void {
    this.pending = reason.slice(0, MAX_REASON_CHARS);
  }

  /** The pending request's reason, once; undefined when there is none. */
  take(): string | undefined {
    const reason = this.pending;
    this.pending = undefined;
    return reason;
  }

  update(budget: ContextBudget): void {
    const available = budget.availableInputTokens;
    this.latest = {
      usedTokens: budget.estimate.tokens,
      availableInputTokens: available,
      percentUsed: available <= 0 ? 100 : Math.round((budget.estimate.tokens / available) * 100),
      categories: budget.estimate.categories,
    };
  }

  snapshot(): ContextUsageSnapshot | undefined {
    return this.latest;
  }
}

const DESCRIPTION =
  'Ask for older turns to be replaced by a checkpoint before your next step, so later requests are smaller. ' +
  'Forge does it only if the savings exceed the cost; the result shows the context usage. The full transcript is always kept.';

const inputSchema: JsonObject = {
  type: 'object',
  properties: {
    reason: { type: 'string', maxLength: MAX_REASON_CHARS, description: 'Why compaction would help now.' },
  },
  required: ['reason'],
  additionalProperties: false,
};

/**
 * The `request_compaction` tool: the model sees a read-only usage snapshot in the result and may
 * ask for a checkpoint. It changes nothing itself (risk `read`); the run decides at the next safe
 * boundary, through the host's context manager and its cost gate.
 */
export function createRequestCompactionTool(channel: CompactionRequestChannel): Tool {
  return {
    name: REQUEST_COMPACTION_TOOL,
    description: DESCRIPTION,
    inputSchema,
    risk: 'read',
    describe: () => 'ask for a context checkpoint at the next step',
    async execute(input: JsonValue): Promise<ToolExecutionResult> {
      const reason =
        input !== null && typeof input === 'object' && !Array.isArray(input)
          ? (input as { readonly reason?: JsonValue }).reason
          : undefined;
      if (typeof reason !== 'string' || reason.trim() === '') {
        return {
          output: {
            type: 'error-text',
            value: 'request_compaction needs a "reason": a short sentence saying why compaction would help now.',
          },
        };
      }
      channel.request(reason.trim());
      const usage = channel.snapshot();
      const value: JsonObject = {
        requested: true,
        takesEffect: 'before your next step, if the cost gate agrees',
        ...(usage === undefined ? {} : { usage: usage as unknown as JsonObject }),
      };
      return { output: { type: 'json', value }, metadata: { compactionRequested: true } };
    },
  };
}
