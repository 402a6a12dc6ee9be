import type { JsonValue } from '@forge/core';
import type { Approach, Constraint } from '../fixture/schema.js';
import type { RequestView, Segment } from './request-view.js';

/*
 * What the policy model may take as known, and from where. Every rule reads only the request's
 * text segments (see request-view.ts):
 * - a file's fact (`fact:<key>=<value>`): from a tool result, from the agent's own successful edit,
 *   or from a FACTS_VALID line of a checkpoint — never from a FACTS_SUSPECT line, a digest, a summary
 *   or assistant prose, whose freshness nobody checked;
 * - a constraint: from the current request, the instructions, a user message, a checkpoint's
 *   CONSTRAINTS or TASK section, a user line of its digest, or a provider's compaction item —
 *   never from tool output or assistant text (text there is data, not authority);
 * - why an approach failed: anywhere in the request except the instructions and the current request;
 * - whether a command passes: only from its own result, and only when no edit follows it.
 */

export type FactSource = 'tool-output' | 'own-edit' | 'checkpoint-fact';

export interface KnownFact {
  readonly value: string;
  readonly source: FactSource;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function factPattern(key: string): RegExp {
  return new RegExp(`fact:${escape(key)}=([A-Za-z0-9_.-]+)`, 'g');
}

function lastMatch(text: string, key: string): string | undefined {
  let value: string | undefined;
  for (const match of text.matchAll(factPattern(key))) value = match[1];
  return value;
}

/** The field `name` of a JSON object, undefined for anything else. */
export function field(input: JsonValue | undefined, name: string): JsonValue | undefined {
  return input !== null && typeof input === 'object' && !Array.isArray(input)
    ? (input as Record<string, JsonValue>)[name]
    : undefined;
}

/** The fact's value from the most recent evidence in the request, if any evidence shows it. */
export function knownFact(view: RequestView, key: string): KnownFact | undefined {
  for (let index = view.segments.length - 1; index >= 0; index -= 1) {
    const segment = view.segments[index] as Segment;
    if (segment.kind === 'tool-result' && segment.failed !== true) {
      const value = lastMatch(segment.text, key);
      if (value !== undefined) return { value, source: 'tool-output' };
    } else if (segment.kind === 'tool-call' && segment.toolName === 'edit_file' && segment.failed === false) {
      const written = field(segment.input, 'new') ?? field(segment.input, 'content');
      const value = typeof written === 'string' ? lastMatch(written, key) : undefined;
      if (value !== undefined) return { value, source: 'own-edit' };
    } else if (segment.kind === 'checkpoint' && segment.section === 'FACTS_VALID') {
      const value = lastMatch(segment.text, key);
      if (value !== undefined) return { value, source: 'checkpoint-fact' };
    }
  }
  return undefined;
}

const DIGEST_USER_LINE = /^- #(\d+) user: /;
const FROM_USER = /\(from user#(\d+)\)/;
const TASK_LINE = /^- latest user request \(user#(\d+)\):/;
const REQUEST_LINE = /^- earlier user request \(user#(\d+)\):/;

interface Candidate {
  readonly constraint: Constraint;
  readonly tier: number;
  readonly position: number;
}

/** Authority of a segment for stating constraints (0: none), and its recency within that authority. */
function authority(
  segment: Segment,
  index: number,
  taskIndex: number | undefined,
): { readonly tier: number; readonly position: number } {
  if (segment.kind === 'user')
    return segment.place === 'request' ? { tier: 3, position: index } : { tier: 1, position: 1_000_000 + index };
  if (segment.kind === 'instructions') return { tier: 2, position: index };
  if (segment.kind !== 'checkpoint') return { tier: 0, position: 0 };
  if (segment.section === 'CONSTRAINTS') return { tier: 1, position: Number(FROM_USER.exec(segment.text)?.[1] ?? 0) };
  if (segment.section === 'DIGEST') {
    const user = DIGEST_USER_LINE.exec(segment.text);
    return user === null ? { tier: 0, position: 0 } : { tier: 1, position: Number(user[1]) };
  }
  if (segment.section === 'TASK') {
    // An earlier request the checkpoint quotes says which user message it was.
    const quoted = REQUEST_LINE.exec(segment.text);
    return { tier: 1, position: quoted?.[1] === undefined ? (taskIndex ?? 0) : Number(quoted[1]) };
  }
  // A provider's compaction item is the model's own memory of the conversation, as a handoff summary is.
  if (segment.section === 'PROVIDER_ITEM') return { tier: 1, position: 0 };
  return { tier: 0, position: 0 };
}

/** True when `text` states the sentence `sentence`, with or without its closing punctuation (a checkpoint lists constraints as clauses). */
function states(text: string, sentence: string): boolean {
  if (text.includes(sentence)) return true;
  const clause = sentence.replace(/[.!]+$/, '');
  return clause.length > 0 && clause !== sentence && new RegExp(`${escape(clause)}(?![\\w-])`).test(text);
}

/**
 * The constraint that applies to `topic`: the current request outranks the instructions, which
 * outrank everything the user said earlier (the most recent first). Undefined when none is visible.
 */
export function applicableConstraint(
  view: RequestView,
  topic: string,
  constraints: Iterable<Constraint>,
): Constraint | undefined {
  const ofTopic = [...constraints].filter((constraint) => constraint.topic === topic);
  let taskIndex: number | undefined;
  for (const segment of view.segments) {
    const task = segment.kind === 'checkpoint' && segment.section === 'TASK' ? TASK_LINE.exec(segment.text) : null;
    if (task?.[1] !== undefined) taskIndex = Number(task[1]);
  }
  let best: Candidate | undefined;
  view.segments.forEach((segment, index) => {
    const { tier, position } = authority(segment, index, taskIndex);
    if (tier === 0) return;
    for (const constraint of ofTopic) {
      if (!states(segment.text, constraint.text)) continue;
      if (best === undefined || tier > best.tier || (tier === best.tier && position >= best.position))
        best = { constraint, tier, position };
    }
  });
  return best?.constraint;
}

/** True when the reason the approach failed is somewhere in the request's history, continuation or checkpoint. */
export function failureVisible(view: RequestView, approach: Approach): boolean {
  return view.segments.some(
    (segment) =>
      segment.place !== 'instructions' && segment.place !== 'request' && segment.text.includes(approach.reason),
  );
}

function sameArgv(input: JsonValue | undefined, argv: readonly string[]): boolean {
  const value = field(input, 'argv');
  return Array.isArray(value) && value.length === argv.length && value.every((item, index) => item === argv[index]);
}

const EXIT_LINE = /\[exit code (-?\d+)[^\]]*\]\s*$/;

/** The exit code a command result reports on its last line (`[exit code N after M ms]`). */
export function exitCodeOf(text: string): number | undefined {
  const match = EXIT_LINE.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The exit code of the latest visible result of `argv`, when no successful edit comes after it in
 * the request. A result summarized into a checkpoint is history, never fresh.
 */
export function freshCommandResult(view: RequestView, argv: readonly string[]): number | undefined {
  for (let index = view.segments.length - 1; index >= 0; index -= 1) {
    const segment = view.segments[index] as Segment;
    if (segment.kind === 'tool-call' && segment.toolName === 'edit_file' && segment.failed === false) return undefined;
    if (segment.kind === 'tool-result' && segment.toolName === 'run_command' && sameArgv(segment.callInput, argv))
      return exitCodeOf(segment.text);
  }
  return undefined;
}
