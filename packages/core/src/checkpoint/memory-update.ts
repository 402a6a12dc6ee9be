import { z } from 'zod';
import type { JsonObject } from '../json.js';
import type { ConstraintRecord, DecisionRecord, FactRecord, NextAction, RejectedApproach } from './schema.js';

/*
 * What the model may propose through `checkpoint_note`: one update of session memory. The input
 * shape is what the model writes; the accepted shape is what the validator produced from it (with
 * evidence resolved and dependency hashes filled in by the host).
 */

const memoryIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'use 1–64 characters from A–Z, a–z, 0–9, "_", "." and "-"');
const textSchema = z.string().min(1);

/** How the model points at evidence: a user message (by index or by a verbatim quote), a tool call, an artifact. */
export const evidenceInputSchema = z.union([
  z.object({ source: z.literal('user'), messageIndex: z.number().int().min(0) }).strict(),
  z.object({ source: z.literal('user'), quote: textSchema }).strict(),
  z.object({ source: z.literal('tool-call'), toolCallId: textSchema }).strict(),
  z.object({ source: z.literal('artifact'), uri: textSchema }).strict(),
]);

export const memoryUpdateSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('plan'),
      steps: z
        .array(z.object({ id: memoryIdSchema, text: textSchema.optional(), done: z.boolean().optional() }).strict())
        .min(1)
        .max(32),
      evidence: evidenceInputSchema.optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('decision'),
      id: memoryIdSchema,
      topic: textSchema.optional(),
      decision: textSchema,
      rationale: textSchema,
      supersedes: memoryIdSchema.optional(),
      evidence: evidenceInputSchema.optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('fact'),
      key: z.string().min(1).max(120),
      value: textSchema,
      dependsOn: z.array(textSchema).max(8).optional(),
      evidence: evidenceInputSchema.optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('rejected_approach'),
      approach: textSchema,
      reason: textSchema,
      retryOnlyIf: textSchema.optional(),
      evidence: evidenceInputSchema.optional(),
    })
    .strict(),
  z.object({ kind: z.literal('constraint'), text: textSchema, evidence: evidenceInputSchema.optional() }).strict(),
  z.object({ kind: z.literal('next_action'), text: textSchema, evidence: evidenceInputSchema.optional() }).strict(),
]);

export type EvidenceInput = z.infer<typeof evidenceInputSchema>;
export type MemoryUpdate = z.infer<typeof memoryUpdateSchema>;
export type MemoryUpdateKind = MemoryUpdate['kind'];

/** One plan step change: `null` leaves the text or done state as it was. */
export interface AcceptedPlanStep {
  readonly id: string;
  readonly text: string | null;
  readonly done: boolean | null;
}

/** An update the validator accepted, ready for `applyMemoryUpdate`. */
export type AcceptedMemoryUpdate =
  | { readonly kind: 'plan'; readonly steps: readonly AcceptedPlanStep[]; readonly seq: number }
  | { readonly kind: 'decision'; readonly record: DecisionRecord }
  | { readonly kind: 'fact'; readonly record: FactRecord }
  | { readonly kind: 'rejected_approach'; readonly record: RejectedApproach }
  | { readonly kind: 'constraint'; readonly record: ConstraintRecord }
  | { readonly kind: 'next_action'; readonly record: NextAction };

const evidenceJsonSchema: JsonObject = {
  type: 'object',
  description:
    'Where it comes from: {"source":"user","quote":"<exact words of a user message>"}, {"source":"tool-call","toolCallId":"<id of a call with a result>"} or {"source":"artifact","uri":"file:<path>"}.',
  properties: {
    source: { type: 'string', enum: ['user', 'tool-call', 'artifact'] },
    messageIndex: { type: 'integer', minimum: 0 },
    quote: { type: 'string' },
    toolCallId: { type: 'string' },
    uri: { type: 'string' },
  },
  required: ['source'],
  additionalProperties: false,
};

const text = (description: string): JsonObject => ({ type: 'string', description });

/** JSON Schema of the `checkpoint_note` input, as the model sees it: each field says which kind it belongs to. */
export const memoryUpdateJsonSchema: JsonObject = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['plan', 'decision', 'fact', 'rejected_approach', 'constraint', 'next_action'] },
    evidence: evidenceJsonSchema,
    steps: {
      type: 'array',
      description:
        'plan: steps to add or update, e.g. [{"id":"tests","text":"Add tests","done":false}]; new ids need text.',
      items: {
        type: 'object',
        properties: { id: { type: 'string' }, text: { type: 'string' }, done: { type: 'boolean' } },
        required: ['id'],
        additionalProperties: false,
      },
    },
    id: text('decision: a new id.'),
    topic: text('decision: what it is about (optional).'),
    decision: text('decision: what was decided.'),
    rationale: text('decision: why.'),
    supersedes: text('decision: id of the decision it replaces (optional).'),
    key: text('fact: a short stable name; a later fact with the same key replaces it.'),
    value: text('fact: what is true about the code or the task.'),
    dependsOn: {
      type: 'array',
      items: { type: 'string' },
      description: 'fact: the files it was read from ("file:<path>"); required for a fact from a file.',
    },
    approach: text('rejected_approach: what was tried.'),
    reason: text('rejected_approach: why it failed.'),
    retryOnlyIf: text('rejected_approach: what would have to change to retry it (optional).'),
    text: text('constraint or next_action: the text.'),
  },
  required: ['kind', 'evidence'],
  additionalProperties: false,
};
