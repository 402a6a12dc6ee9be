import { findApprovalClaim, findPolicyText } from './authority-text.js';
import { CHECKPOINT_CAPS, type CheckpointCaps } from './caps.js';
import { MAX_EARLIER_REQUESTS } from './user-requests.js';
import {
  CHECKPOINT_SAFETY_LABELS,
  contextCheckpointSchema,
  type ContextCheckpoint,
  type StructuredSummary,
} from './schema.js';

export type CheckpointValidation =
  | { readonly ok: true; readonly checkpoint: ContextCheckpoint }
  | { readonly ok: false; readonly errors: readonly string[] };

const PAYLOAD_BY_STRATEGY: Record<string, string> = {
  'forge-state': 'digest',
  'model-structured': 'structured',
  'provider-native': 'opaque',
};

function preflight(value: unknown): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return ['checkpoint: expected an object'];
  const record = value as Record<string, unknown>;
  const errors: string[] = [];
  const present = ['digest', 'structured', 'opaque'].filter((key) => record[key] !== undefined);
  const expected = typeof record['strategy'] === 'string' ? PAYLOAD_BY_STRATEGY[record['strategy']] : undefined;
  if (expected === undefined) {
    errors.push(`strategy: expected one of ${Object.keys(PAYLOAD_BY_STRATEGY).join(', ')}`);
  } else if (present.length !== 1 || present[0] !== expected) {
    errors.push(
      `strategy ${String(record['strategy'])} needs exactly one payload, "${expected}"; found ${present.length === 0 ? 'none' : present.join(', ')}`,
    );
  }
  const labels = Array.isArray(record['safetyLabels']) ? (record['safetyLabels'] as unknown[]) : [];
  for (const label of CHECKPOINT_SAFETY_LABELS) {
    if (!labels.includes(label)) errors.push(`safetyLabels: missing "${label}"`);
  }
  return errors;
}

function checkCount(errors: string[], where: string, count: number, max: number): void {
  if (count > max) errors.push(`${where}: ${count} items, cap is ${max}`);
}

function checkText(errors: string[], where: string, text: string, max: number): void {
  if (text.length > max) errors.push(`${where}: ${text.length} characters, cap is ${max}`);
}

function checkUnique(errors: string[], where: string, keys: readonly string[]): void {
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) errors.push(`${where}: "${key}" appears twice`);
    seen.add(key);
  }
}

function checkKeyedList<T>(
  errors: string[],
  where: string,
  items: readonly T[],
  max: number,
  keyOf: (item: T) => string,
): void {
  checkCount(errors, where, items.length, max);
  checkUnique(errors, where, items.map(keyOf));
}

function checkSeq(errors: string[], where: string, seq: number, messageCount: number): void {
  if (seq >= messageCount)
    errors.push(`${where}: seq ${seq} is past the ${messageCount} messages the checkpoint covers`);
}

function checkSource(errors: string[], checkpoint: ContextCheckpoint, transcriptLength: number): void {
  const { source } = checkpoint;
  if (source.summarizedThrough !== source.tailStart) {
    errors.push(
      `source: summarizedThrough ${source.summarizedThrough} must equal tailStart ${source.tailStart} (the summary and the tail touch)`,
    );
  }
  if (source.tailStart > source.messageCount)
    errors.push(`source: tailStart ${source.tailStart} is past messageCount ${source.messageCount}`);
  if (source.messageCount > transcriptLength) {
    errors.push(`source: messageCount ${source.messageCount} exceeds the transcript's ${transcriptLength} messages`);
  }
}

function checkState(errors: string[], checkpoint: ContextCheckpoint, caps: CheckpointCaps): void {
  const { state, source } = checkpoint;
  const count = source.messageCount;
  if (state.task !== null) {
    checkText(errors, 'state.task.text', state.task.text, caps.maxTaskChars);
    checkSeq(errors, 'state.task.evidence', state.task.evidence.messageIndex, count);
  }
  const earlier = state.earlierRequests ?? [];
  checkCount(errors, 'state.earlierRequests', earlier.length, MAX_EARLIER_REQUESTS);
  let previous = -1;
  for (const request of earlier) {
    checkText(errors, 'state.earlierRequests.text', request.text, caps.maxTaskChars);
    checkSeq(errors, 'state.earlierRequests.evidence', request.evidence.messageIndex, count);
    const index = request.evidence.messageIndex;
    if (index <= previous || (state.task !== null && index >= state.task.evidence.messageIndex)) {
      errors.push(`state.earlierRequests: user#${index} is out of order (oldest first, all before the task)`);
    }
    previous = index;
  }
  checkKeyedList(errors, 'state.artifacts', state.artifacts, caps.maxArtifacts, (artifact) => artifact.uri);
  for (const artifact of state.artifacts)
    checkSeq(errors, `state.artifacts ${artifact.uri}`, artifact.lastSeenSeq, count);
  checkKeyedList(errors, 'state.recentArtifacts', state.recentArtifacts, caps.maxRecentArtifacts, (uri) => uri);
  const known = new Set(state.artifacts.map((artifact) => artifact.uri));
  for (const uri of state.recentArtifacts)
    if (!known.has(uri)) errors.push(`state.recentArtifacts: "${uri}" is not among the artifacts`);
  checkCount(errors, 'state.commands', state.commands.length, caps.maxCommands);
  checkKeyedList(errors, 'state.changedFiles', state.changedFiles, caps.maxChangedFiles, (file) => file.path);
  checkCount(errors, 'state.failures', state.failures.length, caps.maxFailures);
  for (const item of [...state.commands, ...state.changedFiles, ...state.failures])
    checkSeq(errors, 'state', item.seq, count);
  for (const command of state.commands) checkText(errors, 'state.commands', command.command, caps.maxValueChars);
  for (const failure of state.failures) {
    checkText(errors, 'state.failures.what', failure.what, caps.maxValueChars);
    checkText(errors, 'state.failures.why', failure.why, caps.maxValueChars);
  }
}

function checkMemory(errors: string[], checkpoint: ContextCheckpoint, caps: CheckpointCaps): void {
  const { memory } = checkpoint;
  const max = caps.maxMemoryTextChars;
  checkKeyedList(errors, 'memory.plan', memory.plan, caps.maxPlanSteps, (step) => step.id);
  checkKeyedList(errors, 'memory.decisions', memory.decisions, caps.maxDecisions, (decision) => decision.id);
  checkKeyedList(errors, 'memory.facts', memory.facts, caps.maxFacts, (fact) => fact.key);
  checkCount(errors, 'memory.rejectedApproaches', memory.rejectedApproaches.length, caps.maxRejectedApproaches);
  checkCount(errors, 'memory.constraints', memory.constraints.length, caps.maxConstraints);
  const texts: [string, string, boolean][] = [
    ...memory.plan.map((step): [string, string, boolean] => [`memory.plan ${step.id}`, step.text, false]),
    ...memory.decisions.flatMap((decision): [string, string, boolean][] => [
      [`memory.decisions ${decision.id}`, decision.decision, false],
      [`memory.decisions ${decision.id} rationale`, decision.rationale, false],
      [`memory.decisions ${decision.id} topic`, decision.topic ?? '', false],
    ]),
    ...memory.facts.map((fact): [string, string, boolean] => [`memory.facts ${fact.key}`, fact.value, false]),
    ...memory.rejectedApproaches.flatMap((item): [string, string, boolean][] => [
      ['memory.rejectedApproaches approach', item.approach, false],
      ['memory.rejectedApproaches reason', item.reason, false],
      ['memory.rejectedApproaches retryOnlyIf', item.retryOnlyIf ?? '', false],
    ]),
    ...memory.constraints.map((item): [string, string, boolean] => ['memory.constraints', item.text, true]),
    ...(memory.nextAction === null
      ? []
      : [['memory.nextAction', memory.nextAction.text, false] as [string, string, boolean]]),
  ];
  for (const [where, text, allowImperatives] of texts) {
    checkText(errors, where, text, max);
    const found = findPolicyText(text, { allowImperatives });
    if (found !== null) errors.push(`${where}: policy-like text "${found}" is not allowed in checkpoint memory`);
  }
  const count = checkpoint.source.messageCount;
  for (const item of [
    ...memory.plan,
    ...memory.decisions,
    ...memory.facts,
    ...memory.rejectedApproaches,
    ...memory.constraints,
  ]) {
    checkSeq(errors, 'memory', item.seq, count);
  }
}

function checkStructured(errors: string[], summary: StructuredSummary, caps: CheckpointCaps): void {
  const lists: [string, readonly string[], number][] = [
    ['structured.completedWork', summary.completedWork, caps.maxPlanSteps],
    ['structured.decisions', summary.decisions.map((item) => `${item.decision} ${item.rationale}`), caps.maxDecisions],
    [
      'structured.rejectedApproaches',
      summary.rejectedApproaches.map((item) => `${item.approach} ${item.reason} ${item.retryOnlyIf ?? ''}`),
      caps.maxRejectedApproaches,
    ],
    ['structured.changedFiles', summary.changedFiles, caps.maxChangedFiles],
    [
      'structured.commandsAndResults',
      summary.commandsAndResults.map((item) => `${item.command} ${item.result}`),
      caps.maxCommands,
    ],
    ['structured.references', summary.references, caps.maxRecentArtifacts],
    ['structured.constraints', summary.constraints, caps.maxConstraints],
    ['structured.blockers', summary.blockers, caps.maxFailures],
    ['structured.activeGoal', [summary.activeGoal], 1],
    ['structured.phase', [summary.phase], 1],
    ['structured.nextAction', summary.nextAction === null ? [] : [summary.nextAction], 1],
  ];
  for (const [where, items, max] of lists) {
    checkCount(errors, where, items.length, max);
    for (const item of items) {
      checkText(errors, where, item, caps.maxMemoryTextChars * 2);
      const found = findApprovalClaim(item);
      if (found !== null) errors.push(`${where}: approval-like text "${found}" is not allowed in a checkpoint`);
    }
  }
  checkUnique(errors, 'structured.changedFiles', summary.changedFiles);
}

/**
 * Checks a checkpoint before it is installed or after it is loaded: the schema (with exactly the
 * payload its strategy needs and all three safety labels), source and tail ranges inside a
 * transcript of `transcriptLength` messages, every list and text within `caps`, internal
 * consistency (unique ids and keys, recent artifacts among the artifacts, ordered digest), and
 * no approval or policy text in memory. Returns every problem found, each naming where it is.
 */
export function validateCheckpoint(
  checkpoint: unknown,
  transcriptLength: number,
  caps: CheckpointCaps = CHECKPOINT_CAPS,
): CheckpointValidation {
  const early = preflight(checkpoint);
  const parsed = contextCheckpointSchema.safeParse(checkpoint);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'checkpoint'}: ${issue.message}`);
    return { ok: false, errors: [...early, ...issues.filter((issue) => !early.includes(issue))] };
  }
  const errors = [...early];
  const value = parsed.data;
  checkSource(errors, value, transcriptLength);
  checkState(errors, value, caps);
  checkMemory(errors, value, caps);
  if (value.strategy === 'forge-state') {
    const { digest } = value;
    if (digest.summarizedMessages !== value.source.summarizedThrough) {
      errors.push(
        `digest: summarizedMessages ${digest.summarizedMessages} differs from source.summarizedThrough ${value.source.summarizedThrough}`,
      );
    }
    let total = 0;
    let previous = -1;
    for (const entry of digest.entries) {
      total += entry.text.length;
      checkText(errors, `digest #${entry.seq}`, entry.text, caps.maxDigestCharsPerMessage);
      if (entry.seq <= previous) errors.push(`digest #${entry.seq}: entries must be in increasing message order`);
      if (entry.seq >= value.source.summarizedThrough)
        errors.push(`digest #${entry.seq}: outside the summarized range`);
      const claim = findApprovalClaim(entry.text);
      if (claim !== null) errors.push(`digest #${entry.seq}: approval-like text "${claim}"`);
      previous = entry.seq;
    }
    if (total > caps.maxDigestChars) errors.push(`digest: ${total} characters, cap is ${caps.maxDigestChars}`);
  } else if (value.strategy === 'model-structured') {
    checkStructured(errors, value.structured, caps);
  }
  return errors.length === 0 ? { ok: true, checkpoint: value } : { ok: false, errors };
}
