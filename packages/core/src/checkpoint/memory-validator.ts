import { findPolicyText } from './authority-text.js';
import { CHECKPOINT_CAPS, type CheckpointCaps } from './caps.js';
import { CHECKPOINT_NOTE_TOOL, EDIT_FILE_TOOL, READ_FILE_TOOL, normalizeArtifactUri } from './host-metadata.js';
import {
  memoryUpdateSchema,
  type AcceptedMemoryUpdate,
  type AcceptedPlanStep,
  type EvidenceInput,
  type MemoryUpdate,
} from './memory-update.js';
import type { ArtifactKind, CheckpointMemory, EvidenceRef, FactDependency } from './schema.js';
import { oneLine } from './text.js';

/** What the validator needs to know about the session at the point where a note is made. */
export interface MemoryValidationContext {
  /** Transcript index of the message holding the note's tool call; stamps accepted entries. */
  readonly seq: number;
  readonly memory: CheckpointMemory;
  /** User messages before the note, by transcript index. */
  readonly userMessages: ReadonlyMap<number, string>;
  /** Tool calls before the note, by id. */
  readonly toolCalls: ReadonlyMap<
    string,
    {
      readonly toolName: string;
      readonly resultSeq: number | null;
      readonly failed: boolean;
      readonly path: string | null;
    }
  >;
  /** Artifacts the host observed before the note, with their current hash, by uri. */
  readonly artifacts: ReadonlyMap<string, { readonly kind: ArtifactKind; readonly hash: string | null }>;
  readonly caps?: CheckpointCaps;
}

export type MemoryRejectionCode =
  | 'invalid-input'
  | 'missing-evidence'
  | 'unknown-evidence'
  | 'text-too-long'
  | 'policy-text'
  | 'constraint-not-from-user'
  | 'missing-dependencies'
  | 'unknown-dependency'
  | 'unknown-decision'
  | 'duplicate-decision'
  | 'unknown-plan-step'
  | 'plan-full';

export type MemoryValidation =
  | { readonly ok: true; readonly update: AcceptedMemoryUpdate }
  | { readonly ok: false; readonly code: MemoryRejectionCode; readonly reason: string };

const MIN_QUOTE_CHARS = 8;
/** Share of a constraint's words the user message it cites must contain for the message to state it. */
const MIN_CONSTRAINT_SUPPORT = 2 / 3;

/** The words of `text` that carry meaning (three letters or more), lower-cased. */
function contentWords(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length >= 3),
  );
}

/**
 * True when user message `text` states the constraint: most of the constraint's words occur in
 * it. A model can cite any user message, so without this a rule read in a file or a tool output
 * could be recorded as if the user had set it.
 */
function userStates(text: string, constraint: string): boolean {
  const wanted = contentWords(constraint);
  if (wanted.size === 0) return false;
  const said = contentWords(text);
  let found = 0;
  for (const word of wanted) if (said.has(word)) found += 1;
  return found / wanted.size >= MIN_CONSTRAINT_SUPPORT;
}

function reject(code: MemoryRejectionCode, reason: string): MemoryValidation {
  return { ok: false, code, reason: `checkpoint_note rejected: ${reason}` };
}

/** The model-written text fields of an update, by name. */
function textFields(update: MemoryUpdate): [string, string][] {
  switch (update.kind) {
    case 'plan':
      return update.steps.flatMap((step): [string, string][] =>
        step.text === undefined ? [] : [[`steps.${step.id}.text`, step.text]],
      );
    case 'decision':
      return [
        ['topic', update.topic ?? ''],
        ['decision', update.decision],
        ['rationale', update.rationale],
      ];
    case 'fact':
      return [
        ['key', update.key],
        ['value', update.value],
      ];
    case 'rejected_approach':
      return [
        ['approach', update.approach],
        ['reason', update.reason],
        ['retryOnlyIf', update.retryOnlyIf ?? ''],
      ];
    case 'constraint':
    case 'next_action':
      return [['text', update.text]];
  }
}

type Resolved =
  | { readonly ok: true; readonly evidence: EvidenceRef }
  | { readonly ok: false; readonly rejection: MemoryValidation };

function normalizeForQuote(text: string): string {
  return oneLine(text).toLowerCase();
}

function resolveEvidence(evidence: EvidenceInput, context: MemoryValidationContext): Resolved {
  const unknown = (reason: string): Resolved => ({ ok: false, rejection: reject('unknown-evidence', reason) });
  if (evidence.source === 'user') {
    if ('messageIndex' in evidence) {
      return context.userMessages.has(evidence.messageIndex)
        ? { ok: true, evidence: { source: 'user', messageIndex: evidence.messageIndex } }
        : unknown(
            `message ${evidence.messageIndex} is not a user message of this session; cite a user message index or quote the user's words.`,
          );
    }
    const quote = normalizeForQuote(evidence.quote);
    if (quote.replace(/\s/g, '').length < MIN_QUOTE_CHARS) {
      return unknown(
        `the quote is too short to identify a user message; quote at least ${MIN_QUOTE_CHARS} characters verbatim.`,
      );
    }
    let found: number | null = null;
    for (const [index, text] of context.userMessages) {
      if ((found === null || index > found) && normalizeForQuote(text).includes(quote)) found = index;
    }
    return found === null
      ? unknown('no user message contains the quoted words; quote the user verbatim or cite the message index.')
      : { ok: true, evidence: { source: 'user', messageIndex: found } };
  }
  if (evidence.source === 'tool-call') {
    const call = context.toolCalls.get(evidence.toolCallId);
    if (call === undefined) return unknown(`there is no tool call "${evidence.toolCallId}" in this session.`);
    if (call.resultSeq === null)
      return unknown(`tool call "${evidence.toolCallId}" has no result yet; cite it after its result arrives.`);
    if (call.toolName === CHECKPOINT_NOTE_TOOL) {
      return unknown(
        `tool call "${evidence.toolCallId}" is a checkpoint note; a note cannot be evidence for another, so cite what that note cited.`,
      );
    }
    return { ok: true, evidence: { source: 'tool-call', toolCallId: evidence.toolCallId } };
  }
  const uri = normalizeArtifactUri(evidence.uri);
  return context.artifacts.has(uri)
    ? { ok: true, evidence: { source: 'artifact', uri } }
    : unknown(`artifact "${uri}" was never observed by a tool in this session; read it first, then cite it.`);
}

/**
 * True when the evidence is the content of one file (a file artifact, a read or an edit), so the fact
 * goes stale when that file changes. Search and listing results span many files and are not counted.
 */
function derivesFromFile(evidence: EvidenceRef, context: MemoryValidationContext): boolean {
  if (evidence.source === 'artifact') return context.artifacts.get(evidence.uri)?.kind === 'file';
  if (evidence.source === 'tool-call') {
    const call = context.toolCalls.get(evidence.toolCallId);
    return call !== undefined && (call.toolName === READ_FILE_TOOL || call.toolName === EDIT_FILE_TOOL);
  }
  return false;
}

function resolveDependencies(
  uris: readonly string[],
  context: MemoryValidationContext,
): FactDependency[] | MemoryValidation {
  const dependencies = new Map<string, FactDependency>();
  for (const raw of uris) {
    const uri = normalizeArtifactUri(raw);
    const artifact = context.artifacts.get(uri);
    if (artifact === undefined) {
      return reject(
        'unknown-dependency',
        `dependsOn "${uri}" was never observed by a tool in this session; read the file first.`,
      );
    }
    dependencies.set(uri, { uri, hash: artifact.hash });
  }
  return [...dependencies.values()].sort((left, right) => (left.uri < right.uri ? -1 : left.uri > right.uri ? 1 : 0));
}

function validatePlan(
  steps: Extract<MemoryUpdate, { kind: 'plan' }>['steps'],
  context: MemoryValidationContext,
  caps: CheckpointCaps,
): MemoryValidation | AcceptedPlanStep[] {
  const seen = new Set<string>();
  const known = new Map(context.memory.plan.map((step) => [step.id, step]));
  let added = 0;
  const done = new Set(context.memory.plan.filter((step) => step.done).map((step) => step.id));
  for (const step of steps) {
    if (seen.has(step.id)) return reject('invalid-input', `plan step "${step.id}" appears twice in one update.`);
    seen.add(step.id);
    if (!known.has(step.id)) {
      if (step.text === undefined)
        return reject('unknown-plan-step', `plan step "${step.id}" does not exist yet; give it a text to add it.`);
      added += 1;
    }
    if (step.done === true) done.add(step.id);
    if (step.done === false) done.delete(step.id);
  }
  const total = context.memory.plan.length + added;
  if (total > caps.maxPlanSteps && total - done.size > caps.maxPlanSteps) {
    return reject(
      'plan-full',
      `the plan already holds ${context.memory.plan.length} of ${caps.maxPlanSteps} steps; mark finished steps done or reuse step ids.`,
    );
  }
  return steps.map((step) => ({ id: step.id, text: step.text ?? null, done: step.done ?? null }));
}

/**
 * Checks one proposed memory update against the session. It is accepted only when its evidence
 * points at something that exists (a user message, a tool call with a result, an observed
 * artifact), its text states no rule about the agent's behaviour or authority, a constraint cites
 * the user, and a fact read from a file names the files it depends on. A rejection carries a
 * reason written for the model, which sees it as the tool's error.
 */
export function validateMemoryUpdate(update: unknown, context: MemoryValidationContext): MemoryValidation {
  const caps = context.caps ?? CHECKPOINT_CAPS;
  const parsed = memoryUpdateSchema.safeParse(update);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`)
      .join('; ');
    return reject('invalid-input', `${issues}.`);
  }
  const input = parsed.data;
  if (input.evidence === undefined) {
    return reject(
      'missing-evidence',
      `a ${input.kind} needs "evidence": a user message ({"source":"user","quote":"..."}), a tool call with a result ({"source":"tool-call","toolCallId":"..."}) or an observed artifact ({"source":"artifact","uri":"file:..."}).`,
    );
  }
  const textRejection = rejectText(input, caps);
  if (textRejection !== undefined) return textRejection;
  const resolved = resolveEvidence(input.evidence, context);
  if (!resolved.ok) return resolved.rejection;
  return acceptUpdate(input, resolved.evidence, context, caps);
}

/** The rejection of a text field that is too long or states policy; undefined when every field is fine. */
function rejectText(input: MemoryUpdate, caps: CheckpointCaps): MemoryValidation | undefined {
  const fields = textFields(input);
  for (const [name, text] of fields) {
    if (text.length > caps.maxMemoryTextChars) {
      return reject(
        'text-too-long',
        `${name} has ${text.length} characters; the limit is ${caps.maxMemoryTextChars}. Say it shorter.`,
      );
    }
  }
  for (const [name, text] of fields) {
    const found = findPolicyText(text, { allowImperatives: input.kind === 'constraint' });
    if (found !== null) {
      return reject(
        'policy-text',
        `${name} contains "${found}". Checkpoint memory records facts about the task and the code; it cannot hold rules about the agent's behaviour, approvals, permissions, sandboxing or policy.`,
      );
    }
  }
  return undefined;
}

type UpdateOf<Kind extends MemoryUpdate['kind']> = Extract<MemoryUpdate, { kind: Kind }>;

function acceptUpdate(
  input: MemoryUpdate,
  evidence: EvidenceRef,
  context: MemoryValidationContext,
  caps: CheckpointCaps,
): MemoryValidation {
  const seq = context.seq;
  switch (input.kind) {
    case 'plan': {
      const steps = validatePlan(input.steps, context, caps);
      return Array.isArray(steps) ? { ok: true, update: { kind: 'plan', steps, seq } } : steps;
    }
    case 'decision':
      return acceptDecision(input, evidence, context);
    case 'fact':
      return acceptFact(input, evidence, context);
    case 'rejected_approach':
      return {
        ok: true,
        update: {
          kind: 'rejected_approach',
          record: {
            approach: input.approach,
            reason: input.reason,
            retryOnlyIf: input.retryOnlyIf ?? null,
            evidence,
            seq,
          },
        },
      };
    case 'constraint':
      return acceptConstraint(input, evidence, context);
    case 'next_action':
      return { ok: true, update: { kind: 'next_action', record: { text: input.text, evidence, seq } } };
  }
}

function acceptDecision(
  input: UpdateOf<'decision'>,
  evidence: EvidenceRef,
  context: MemoryValidationContext,
): MemoryValidation {
  if (context.memory.decisions.some((decision) => decision.id === input.id)) {
    return reject(
      'duplicate-decision',
      `decision "${input.id}" already exists; record a new id with "supersedes":"${input.id}" to change it.`,
    );
  }
  if (
    input.supersedes !== undefined &&
    !context.memory.decisions.some((decision) => decision.id === input.supersedes)
  ) {
    return reject('unknown-decision', `supersedes "${input.supersedes}" names no recorded decision.`);
  }
  return {
    ok: true,
    update: {
      kind: 'decision',
      record: {
        id: input.id,
        topic: input.topic ?? null,
        decision: input.decision,
        rationale: input.rationale,
        supersedes: input.supersedes ?? null,
        evidence,
        seq: context.seq,
      },
    },
  };
}

function acceptFact(
  input: UpdateOf<'fact'>,
  evidence: EvidenceRef,
  context: MemoryValidationContext,
): MemoryValidation {
  const uris = input.dependsOn ?? [];
  if (uris.length === 0 && derivesFromFile(evidence, context)) {
    return reject(
      'missing-dependencies',
      `fact "${input.key}" comes from a file; list that file in "dependsOn" (e.g. ["file:src/app.ts"]) so the fact is checked when the file changes.`,
    );
  }
  const dependsOn = resolveDependencies(uris, context);
  if (!Array.isArray(dependsOn)) return dependsOn;
  return {
    ok: true,
    update: { kind: 'fact', record: { key: input.key, value: input.value, evidence, dependsOn, seq: context.seq } },
  };
}

function acceptConstraint(
  input: UpdateOf<'constraint'>,
  evidence: EvidenceRef,
  context: MemoryValidationContext,
): MemoryValidation {
  if (evidence.source !== 'user') {
    return reject('constraint-not-from-user', 'only the user sets constraints; cite the user message that states it.');
  }
  if (!userStates(context.userMessages.get(evidence.messageIndex) ?? '', input.text)) {
    return reject(
      'constraint-not-from-user',
      `user message ${evidence.messageIndex} does not state this constraint; only the user sets constraints, so record one in the user's own words and cite the message that says it.`,
    );
  }
  return { ok: true, update: { kind: 'constraint', record: { text: input.text, evidence, seq: context.seq } } };
}
