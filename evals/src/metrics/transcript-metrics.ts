import type { JsonValue, Message, ToolResultPart } from '@forge/core';
import type { ExpandedFixture } from '../fixture/expand.js';

/*
 * Metrics read from the stored transcript alone, so they mean the same for the policy model and
 * for a live model: what the agent re-read, which failed approaches it tried again.
 */

interface CallRecord {
  readonly id: string;
  readonly toolName: string;
  readonly input: JsonValue;
  readonly result: ToolResultPart | undefined;
}

function calls(messages: readonly Message[]): CallRecord[] {
  const results = new Map<string, ToolResultPart>();
  for (const message of messages)
    if (message.role === 'tool') for (const part of message.content) results.set(part.toolCallId, part);
  const list: CallRecord[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call')
        list.push({
          id: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
          result: results.get(part.toolCallId),
        });
    }
  }
  return list;
}

function stringField(value: JsonValue | undefined, name: string): JsonValue | undefined {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, JsonValue>)[name]
    : undefined;
}

/** A read of a file whose content had not changed since the agent's previous read of it. */
export interface RedundantReread {
  readonly toolCallId: string;
  readonly path: string;
  /**
   * Since its previous read of that file the agent had noted, with an accepted `checkpoint_note`,
   * the fact it read the file for (any fact from that file when the reason is unknown): the
   * memory it asked Forge to keep did not reach it. Otherwise it had never asked.
   */
  readonly noted: boolean;
}

/** The file and key of an accepted fact note; undefined for any other call. */
function notedFacts(call: CallRecord): { readonly files: string[]; readonly key: string } | undefined {
  if (call.toolName !== 'checkpoint_note' || call.result === undefined || call.result.output.type === 'error-text')
    return undefined;
  if (stringField(call.input, 'kind') !== 'fact') return undefined;
  const dependsOn = stringField(call.input, 'dependsOn');
  const key = stringField(call.input, 'key');
  const files = Array.isArray(dependsOn)
    ? dependsOn.filter((item): item is string => typeof item === 'string').map((item) => item.replace(/^file:/, ''))
    : [];
  return { files, key: typeof key === 'string' ? key : '' };
}

/**
 * Reads of a file whose content (host-computed hash) had not changed since the agent's previous
 * read of it: the agent had lost what it learned. A re-read the policy model makes because
 * `edit_file` refused an edit (its call id ends in `-reread`) is needed by the tool, not by memory,
 * and is not counted.
 */
export function redundantRereadCalls(
  messages: readonly Message[],
  keyOf: (toolCallId: string) => string | undefined = () => undefined,
): RedundantReread[] {
  const lastHash = new Map<string, string>();
  const notedSinceRead = new Map<string, Set<string>>();
  const redundant: RedundantReread[] = [];
  for (const call of calls(messages)) {
    const note = notedFacts(call);
    for (const path of note?.files ?? [])
      notedSinceRead.set(path, new Set([...(notedSinceRead.get(path) ?? []), note?.key ?? '']));
    if (call.toolName !== 'read_file' || call.result === undefined || call.result.output.type === 'error-text')
      continue;
    const path = stringField(call.result.metadata, 'path');
    const hash = stringField(call.result.metadata, 'sha256');
    if (typeof path !== 'string' || typeof hash !== 'string') continue;
    if (lastHash.get(path) === hash && !call.id.endsWith('-reread')) {
      const keys = notedSinceRead.get(path);
      const wanted = keyOf(call.id);
      redundant.push({
        toolCallId: call.id,
        path,
        noted: keys !== undefined && (wanted === undefined || keys.has(wanted)),
      });
    }
    lastHash.set(path, hash);
    notedSinceRead.delete(path);
  }
  return redundant;
}

/** How many reads {@link redundantRereadCalls} finds. */
export function redundantRereads(messages: readonly Message[]): number {
  return redundantRereadCalls(messages).length;
}

function argvKey(input: JsonValue): string | undefined {
  const argv = stringField(input, 'argv');
  return Array.isArray(argv) ? JSON.stringify(argv) : undefined;
}

function exitCode(result: ToolResultPart): number | undefined {
  const value = stringField(result.metadata, 'exitCode');
  return typeof value === 'number' ? value : undefined;
}

/** Runs of a fixture approach's command after an earlier run of it had already failed. */
export function repeatedFailedInvestigations(fixture: ExpandedFixture, messages: readonly Message[]): number {
  const approachCommands = new Set<string>();
  for (const approach of fixture.approaches.values()) {
    const command = fixture.commandsById.get(approach.command);
    if (command !== undefined) approachCommands.add(JSON.stringify(command.argv));
  }
  const failed = new Set<string>();
  let repeated = 0;
  for (const call of calls(messages)) {
    if (call.toolName !== 'run_command' || call.result === undefined) continue;
    const key = argvKey(call.input);
    if (key === undefined || !approachCommands.has(key)) continue;
    if (failed.has(key)) repeated += 1;
    const code = exitCode(call.result);
    if (call.result.output.type === 'error-text' || (code !== undefined && code !== 0)) failed.add(key);
  }
  return repeated;
}

/** User messages that appear more than once in the transcript (input admitted twice, as by a bad retry). */
export function duplicateInputs(messages: readonly Message[]): number {
  const seen = new Set<string>();
  let duplicates = 0;
  for (const message of messages) {
    if (message.role !== 'user') continue;
    if (seen.has(message.content)) duplicates += 1;
    seen.add(message.content);
  }
  return duplicates;
}

/**
 * Working-set re-reads: reads (and runs) the agent made because verbatim text it needed was not
 * in view (`needsText` says which calls it made for that reason), of content it had been shown
 * before. For a file: its hash is one the agent had read, or had produced with its own edit of a
 * version it knew. For a command: the output is the same as one of its earlier runs. A first read,
 * or a read after the file changed outside, is not a re-read: the content was new to it.
 */
export function workingSetRereadCalls(
  messages: readonly Message[],
  needsText: (toolCallId: string) => boolean,
): string[] {
  const seenFiles = new Map<string, Set<string>>();
  const seenOutputs = new Map<string, Set<string>>();
  const rereads: string[] = [];
  const remember = (map: Map<string, Set<string>>, key: string, value: string) =>
    map.set(key, new Set([...(map.get(key) ?? []), value]));
  for (const call of calls(messages)) {
    if (call.result === undefined || call.result.output.type === 'error-text') continue;
    if (call.toolName === 'read_file') {
      const path = stringField(call.result.metadata, 'path');
      const hash = stringField(call.result.metadata, 'sha256');
      if (typeof path !== 'string' || typeof hash !== 'string') continue;
      if (needsText(call.id) && seenFiles.get(path)?.has(hash) === true) rereads.push(call.id);
      remember(seenFiles, path, hash);
    } else if (call.toolName === 'edit_file') {
      const path = stringField(call.result.metadata, 'path');
      const before = stringField(call.result.metadata, 'sha256Before');
      const after = stringField(call.result.metadata, 'sha256After');
      if (
        typeof path === 'string' &&
        typeof after === 'string' &&
        (before === null || (typeof before === 'string' && seenFiles.get(path)?.has(before) === true))
      )
        remember(seenFiles, path, after);
    } else if (call.toolName === 'run_command') {
      const key = argvKey(call.input);
      if (key === undefined) continue;
      const output =
        call.result.output.type === 'json' ? JSON.stringify(call.result.output.value) : call.result.output.value;
      if (needsText(call.id) && seenOutputs.get(key)?.has(output) === true) rereads.push(call.id);
      remember(seenOutputs, key, output);
    }
  }
  return rereads;
}
