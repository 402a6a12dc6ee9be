import type { JsonObject, JsonValue } from '@forge/core';
import type { CheckpointTranscriptEntry } from '@forge/core/checkpoint';

/** The median of a benchmark's samples (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The sample at `share` (0.95 for p95) of the sorted samples; 0 when there are none. */
export function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
}

/** A number with thousands separators and exactly `digits` decimals (`12,345.6`). */
export function format(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/**
 * A synthetic transcript of rounds until it holds about `tokens` tokens (one token per four
 * characters of message JSON); `round` appends one round's entries with `push`.
 */
export function syntheticTranscript(
  tokens: number,
  round: (index: number, push: (entry: CheckpointTranscriptEntry) => void) => void,
): CheckpointTranscriptEntry[] {
  const entries: CheckpointTranscriptEntry[] = [];
  let chars = 0;
  const push = (entry: CheckpointTranscriptEntry): void => {
    entries.push(entry);
    chars += JSON.stringify(entry.message).length;
  };
  for (let index = 0; chars / 4 < tokens; index += 1) round(index, push);
  return entries;
}

export function toolCall(id: string, toolName: string, input: JsonValue, runId: string): CheckpointTranscriptEntry {
  return { message: { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input }] }, runId };
}

export function toolResult(
  id: string,
  toolName: string,
  value: string,
  runId: string,
  metadata?: JsonObject,
): CheckpointTranscriptEntry {
  return {
    message: {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName,
          output: { type: 'text', value },
          ...(metadata === undefined ? {} : { metadata }),
        },
      ],
    },
    runId,
  };
}
