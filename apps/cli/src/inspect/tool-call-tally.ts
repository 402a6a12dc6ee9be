import { BoundedList, TopList } from './bounded-list.js';
import type { ToolCallRow, ToolCallSummary, ToolTotals } from './report.js';

const SLOWEST_CALLS = 5;
const NOT_OK_CALLS = 20;

interface MutableTotals {
  calls: number;
  outcomes: Record<string, number>;
  totalDurationMs: number;
  maxDurationMs: number;
}

/**
 * Counts a run's tool calls as they start and end: totals per tool, the slowest calls, and calls
 * that did not end ok (including those the trace never saw end). Memory grows with the number of
 * tools and of calls in flight, not with the number of calls.
 */
export class ToolCallTally {
  private readonly pending = new Map<string, { step: number; toolName: string }>();
  private readonly totals = new Map<string, MutableTotals>();
  private readonly slowest = new TopList<ToolCallRow>(SLOWEST_CALLS, (row) => row.durationMs ?? 0);
  private readonly notOk = new BoundedList<ToolCallRow>(NOT_OK_CALLS);
  private total = 0;

  started(call: { readonly step: number; readonly toolCallId: string; readonly toolName: string }): void {
    this.pending.set(call.toolCallId, { step: call.step, toolName: call.toolName });
  }

  completed(row: ToolCallRow): void {
    this.pending.delete(row.toolCallId);
    this.total += 1;
    let totals = this.totals.get(row.toolName);
    if (totals === undefined) {
      totals = { calls: 0, outcomes: {}, totalDurationMs: 0, maxDurationMs: 0 };
      this.totals.set(row.toolName, totals);
    }
    totals.calls += 1;
    totals.outcomes[row.outcome] = (totals.outcomes[row.outcome] ?? 0) + 1;
    const duration = row.durationMs ?? 0;
    totals.totalDurationMs += duration;
    totals.maxDurationMs = Math.max(totals.maxDurationMs, duration);
    if (row.durationMs !== undefined) this.slowest.offer(row);
    if (row.outcome !== 'ok') this.notOk.push(row);
  }

  /** The summary so far; calls still in flight are listed as `unfinished`. */
  summary(): ToolCallSummary {
    const notOk = [...this.notOk.items];
    let notOkTotal = this.notOk.total;
    for (const [toolCallId, call] of this.pending) {
      notOkTotal += 1;
      if (notOk.length < NOT_OK_CALLS)
        notOk.push({ step: call.step, toolCallId, toolName: call.toolName, outcome: 'unfinished' });
    }
    const byTool: ToolTotals[] = [...this.totals.entries()]
      .map(([toolName, totals]) => ({ toolName, ...totals }))
      .sort((left, right) => right.calls - left.calls || left.toolName.localeCompare(right.toolName));
    return { total: this.total, byTool, slowest: this.slowest.items, notOk, notOkTotal };
  }
}
