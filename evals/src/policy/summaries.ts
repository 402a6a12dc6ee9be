import type { ModelRequest, NativeCompactionRequest } from '@forge/core';
import type { ExpandedFixture } from '../fixture/expand.js';
import { failureVisible, knownFact } from './knowledge.js';
import type { RequestView, Segment } from './request-view.js';

/*
 * What the policy model writes when it is asked to summarize instead of to act: a handoff summary
 * (the naive baseline, a provider's own compaction) or the structured checkpoint a compactor model
 * returns. Like any model, it can only write down what its request shows.
 */

/** What a provider-native compaction sends, as a request to count: its instructions and its messages as history, nothing else. */
export function nativeCompactionInput(request: NativeCompactionRequest): ModelRequest {
  return {
    instructions: request.instructions,
    history: request.messages,
    currentRequest: { role: 'user', content: '' },
    continuation: [],
    tools: [],
  };
}

/** The first line of the summary prompt; a request starting with it asks the model for a summary. */
export const SUMMARY_REQUEST = '[SUMMARIZE THE CONVERSATION FOR A HANDOFF]';

/**
 * A handoff summary: what a successor would need that the request shows — the constraints the
 * user stated, the approaches that failed and why, the facts it read, the latest request. It is
 * prose, so a successor cannot check it against the files.
 */
export function writeSummary(fixture: ExpandedFixture, view: RequestView): string {
  const lines = ['Summary of the conversation so far:'];
  const authoritative = view.segments.filter(
    (segment: Segment) => segment.kind === 'user' || segment.kind === 'checkpoint',
  );
  for (const constraint of fixture.constraints.values()) {
    if (authoritative.some((segment) => segment.place !== 'request' && segment.text.includes(constraint.text)))
      lines.push(`- The user said: ${constraint.text}`);
  }
  for (const approach of fixture.approaches.values()) {
    if (failureVisible(view, approach)) lines.push(`- Tried ${approach.description}; it failed: ${approach.reason}`);
  }
  const keys = new Set<string>();
  for (const segment of view.segments)
    for (const match of segment.text.matchAll(/fact:([A-Za-z0-9_.-]+)=/g))
      if (match[1] !== undefined) keys.add(match[1]);
  for (const key of [...keys].sort()) {
    const known = knownFact(view, key);
    if (known !== undefined) lines.push(`- ${key} was ${known.value}`);
  }
  const lastUser = view.segments.filter((segment) => segment.kind === 'user' && segment.place === 'history').at(-1);
  if (lastUser !== undefined) lines.push(`- The latest request was: ${lastUser.text.slice(0, 300)}`);
  return lines.join('\n');
}

/** True when the request asks for a structured continuation checkpoint (a compactor model's job). */
export function isCompactorRequest(view: RequestView): boolean {
  const instructions = view.segments.find((segment) => segment.kind === 'instructions')?.text ?? '';
  return instructions.includes('continuation checkpoint') && instructions.includes('JSON Schema');
}

const MESSAGE_HEADER = /^#(\d+) (user|assistant|tool)(?: \([^)]*\))?:$/;

/** The transcript a compactor request renders, split back into its messages. */
function compactorMessages(text: string): { readonly role: string; readonly body: string }[] {
  const messages: { role: string; body: string }[] = [];
  for (const line of text.split('\n')) {
    const header = MESSAGE_HEADER.exec(line);
    if (header?.[2] !== undefined) messages.push({ role: header[2], body: '' });
    else if (messages.length > 0) (messages.at(-1) as { body: string }).body += `${line}\n`;
  }
  return messages;
}

/**
 * The structured checkpoint the policy model writes as a compactor: the latest user request as the
 * goal, the constraints user messages state, the approaches whose failure reason is shown. Fields
 * it cannot fill from what it sees stay empty, as the compactor instructions ask.
 */
export function writeStructuredSummary(fixture: ExpandedFixture, view: RequestView): string {
  const messages = compactorMessages(view.currentRequest);
  const users = messages.filter((message) => message.role === 'user');
  const constraints = [...fixture.constraints.values()].filter((constraint) =>
    users.some((message) => message.body.includes(constraint.text)),
  );
  const rejected = [...fixture.approaches.values()].filter((approach) =>
    messages.some((message) => message.body.includes(approach.reason)),
  );
  return JSON.stringify({
    activeGoal: (users.at(-1)?.body ?? '').trim().slice(0, 300),
    phase: 'in progress',
    completedWork: [],
    decisions: [],
    rejectedApproaches: rejected.map((approach) => ({
      approach: approach.description,
      reason: approach.reason,
      retryOnlyIf: null,
    })),
    changedFiles: [],
    commandsAndResults: [],
    references: [],
    constraints: constraints.map((constraint) => constraint.text),
    blockers: [],
    nextAction: null,
  });
}
