import { z } from 'zod';

/*
 * The checkpoint model: one JSON value that unifies the deterministic state projection, the
 * validated memory the model proposes, and the three ways of carrying the summarized turns
 * (extractive digest, compactor output, opaque provider item). Optional values are `null`, never
 * absent, so equal checkpoints always serialize to equal bytes.
 */

/** Labels every checkpoint carries: what it is, and what it can never be. */
export const CHECKPOINT_SAFETY_LABELS = [
  'untrusted-conversation-memory',
  'no-approval-state',
  'no-policy-authority',
] as const;

const sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, 'expected a lowercase SHA-256 hex digest');
const seqSchema = z.number().int().min(0);

/**
 * Where a memory entry comes from: a user message (by transcript index), a tool call with a
 * recorded result (by id), or an artifact the host observed (by uri).
 */
export const evidenceRefSchema = z.discriminatedUnion('source', [
  z.object({ source: z.literal('user'), messageIndex: seqSchema }).strict(),
  z.object({ source: z.literal('tool-call'), toolCallId: z.string().min(1) }).strict(),
  z.object({ source: z.literal('artifact'), uri: z.string().min(1) }).strict(),
]);

export const artifactKindSchema = z.enum(['file', 'command', 'tool_output']);

/** Something the host observed, with the content hash the host computed (never the model). */
export const artifactSchema = z
  .object({
    uri: z.string().min(1),
    kind: artifactKindSchema,
    hash: sha256HexSchema.nullable(),
    lastSeenSeq: seqSchema,
  })
  .strict();

/** A command that ran once. Its exit code is history: it says nothing about the code as it is now. */
export const commandRecordSchema = z
  .object({
    command: z.string(),
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    timedOut: z.boolean(),
    runId: z.string().nullable(),
    seq: seqSchema,
  })
  .strict();

export const changedFileSchema = z
  .object({ path: z.string().min(1), hash: sha256HexSchema.nullable(), seq: seqSchema })
  .strict();

/** "Tried `what`; failed because `why`." */
export const failureRecordSchema = z
  .object({ what: z.string(), why: z.string(), runId: z.string().nullable(), seq: seqSchema })
  .strict();

export const taskPointerSchema = z
  .object({ text: z.string(), evidence: z.object({ source: z.literal('user'), messageIndex: seqSchema }).strict() })
  .strict();

/** State the host reduces from the transcript alone; nothing here is taken from model-written text. */
export const checkpointStateSchema = z
  .object({
    task: taskPointerSchema.nullable(),
    /**
     * The user's requests before `task`, oldest first, bounded: present only in checkpoints built
     * to keep every request (`requests: 'all'`), absent (never empty) otherwise.
     */
    earlierRequests: z.array(taskPointerSchema).min(1).optional(),
    /** Sorted by uri. */
    artifacts: z.array(artifactSchema),
    /** Most recent first, unique. */
    recentArtifacts: z.array(z.string().min(1)),
    /** Oldest first. */
    commands: z.array(commandRecordSchema),
    /** Sorted by path. */
    changedFiles: z.array(changedFileSchema),
    /** Oldest first. */
    failures: z.array(failureRecordSchema),
  })
  .strict();

export const planStepSchema = z
  .object({ id: z.string().min(1), text: z.string(), done: z.boolean(), seq: seqSchema })
  .strict();

export const decisionRecordSchema = z
  .object({
    id: z.string().min(1),
    topic: z.string().nullable(),
    decision: z.string(),
    rationale: z.string(),
    supersedes: z.string().nullable(),
    evidence: evidenceRefSchema,
    seq: seqSchema,
  })
  .strict();

export const factDependencySchema = z.object({ uri: z.string().min(1), hash: sha256HexSchema.nullable() }).strict();

export const factRecordSchema = z
  .object({
    key: z.string().min(1),
    value: z.string(),
    evidence: evidenceRefSchema,
    /** The artifacts the fact was read from, with their hash when the fact was recorded. */
    dependsOn: z.array(factDependencySchema),
    seq: seqSchema,
  })
  .strict();

export const rejectedApproachSchema = z
  .object({
    approach: z.string(),
    reason: z.string(),
    retryOnlyIf: z.string().nullable(),
    evidence: evidenceRefSchema,
    seq: seqSchema,
  })
  .strict();

export const constraintRecordSchema = z
  .object({
    text: z.string(),
    evidence: z.object({ source: z.literal('user'), messageIndex: seqSchema }).strict(),
    seq: seqSchema,
  })
  .strict();

export const nextActionSchema = z.object({ text: z.string(), evidence: evidenceRefSchema, seq: seqSchema }).strict();

/** Memory the model proposed through `checkpoint_note` and the validator accepted. */
export const checkpointMemorySchema = z
  .object({
    /** In the order steps were first added. */
    plan: z.array(planStepSchema),
    /** Oldest first. */
    decisions: z.array(decisionRecordSchema),
    /** Sorted by key. */
    facts: z.array(factRecordSchema),
    /** Oldest first. */
    rejectedApproaches: z.array(rejectedApproachSchema),
    /** Oldest first. */
    constraints: z.array(constraintRecordSchema),
    nextAction: nextActionSchema.nullable(),
  })
  .strict();

export const digestEntrySchema = z
  .object({ seq: seqSchema, role: z.enum(['user', 'assistant', 'tool']), text: z.string() })
  .strict();

/** Redacted extractive digest of the summarized messages, one bounded line per shown message. */
export const checkpointDigestSchema = z
  .object({
    summarizedMessages: z.number().int().min(0),
    /** Index order. */
    entries: z.array(digestEntrySchema),
  })
  .strict();

/** What a compactor model returns for the `model-structured` strategy. */
export const structuredSummarySchema = z
  .object({
    activeGoal: z.string(),
    phase: z.string(),
    completedWork: z.array(z.string()),
    decisions: z.array(z.object({ decision: z.string(), rationale: z.string() }).strict()),
    rejectedApproaches: z.array(
      z.object({ approach: z.string(), reason: z.string(), retryOnlyIf: z.string().nullable() }).strict(),
    ),
    changedFiles: z.array(z.string()),
    commandsAndResults: z.array(z.object({ command: z.string(), result: z.string() }).strict()),
    references: z.array(z.string()),
    constraints: z.array(z.string()),
    blockers: z.array(z.string()),
    nextAction: z.string().nullable(),
  })
  .strict();

/** A provider's compaction item, stored elsewhere and referenced here; never interpreted. */
export const opaqueReferenceSchema = z
  .object({
    provider: z.string().min(1),
    modelId: z.string().min(1),
    itemHash: sha256HexSchema,
    bytes: z.number().int().min(0),
  })
  .strict();

/**
 * Which messages the checkpoint stands for. Messages `[0, summarizedThrough)` are summarized and
 * hashed into `sourceHash`; the retained tail `[tailStart, messageCount)` is kept verbatim and hashed
 * into `tailHash`. The two ranges touch: `tailStart === summarizedThrough`.
 */
export const checkpointSourceSchema = z
  .object({
    summarizedThrough: seqSchema,
    sourceHash: sha256HexSchema,
    tailStart: seqSchema,
    tailHash: sha256HexSchema,
    messageCount: seqSchema,
  })
  .strict();

/** 1-based inclusive line range of a file. */
export const lineRegionSchema = z
  .object({ startLine: z.number().int().min(1), endLine: z.number().int().min(1) })
  .strict()
  .refine((region) => region.endLine >= region.startLine, { message: 'endLine must not be before startLine' });

/** A file in hand: the latest read or edit of it, and the part it covered (`null`: the whole file). */
export const workingSetFileSchema = z
  .object({
    path: z.string().min(1),
    hash: sha256HexSchema.nullable(),
    region: lineRegionSchema.nullable(),
    seq: seqSchema,
  })
  .strict();

/**
 * The files the agent worked on most recently, most recent first, with the bounds they are
 * rendered in. The text itself is never stored: it is read from disk each time the view is rendered.
 */
export const workingSetSchema = z
  .object({
    /** Characters of file text the section may show in all. */
    maxChars: z.number().int().min(0),
    /** Characters of one file's text; a larger file shows the region last read or edited. */
    maxFileChars: z.number().int().min(0),
    files: z.array(workingSetFileSchema),
  })
  .strict();

const checkpointBaseShape = {
  schemaVersion: z.literal(1),
  source: checkpointSourceSchema,
  state: checkpointStateSchema,
  memory: checkpointMemorySchema,
  estimatedTokens: z.number().int().min(0),
  safetyLabels: z.tuple([
    z.literal(CHECKPOINT_SAFETY_LABELS[0]),
    z.literal(CHECKPOINT_SAFETY_LABELS[1]),
    z.literal(CHECKPOINT_SAFETY_LABELS[2]),
  ]),
};

export const contextCheckpointSchema = z.discriminatedUnion('strategy', [
  z
    .object({
      ...checkpointBaseShape,
      strategy: z.literal('forge-state'),
      digest: checkpointDigestSchema,
      workingSet: workingSetSchema.optional(),
    })
    .strict(),
  z
    .object({ ...checkpointBaseShape, strategy: z.literal('model-structured'), structured: structuredSummarySchema })
    .strict(),
  z.object({ ...checkpointBaseShape, strategy: z.literal('provider-native'), opaque: opaqueReferenceSchema }).strict(),
]);

export type CheckpointSafetyLabel = (typeof CHECKPOINT_SAFETY_LABELS)[number];
export type EvidenceRef = z.infer<typeof evidenceRefSchema>;
export type UserEvidenceRef = Extract<EvidenceRef, { source: 'user' }>;
export type ArtifactKind = z.infer<typeof artifactKindSchema>;
export type Artifact = z.infer<typeof artifactSchema>;
export type CommandRecord = z.infer<typeof commandRecordSchema>;
export type ChangedFile = z.infer<typeof changedFileSchema>;
export type FailureRecord = z.infer<typeof failureRecordSchema>;
export type TaskPointer = z.infer<typeof taskPointerSchema>;
export type CheckpointState = z.infer<typeof checkpointStateSchema>;
export type PlanStep = z.infer<typeof planStepSchema>;
export type DecisionRecord = z.infer<typeof decisionRecordSchema>;
export type FactDependency = z.infer<typeof factDependencySchema>;
export type FactRecord = z.infer<typeof factRecordSchema>;
export type RejectedApproach = z.infer<typeof rejectedApproachSchema>;
export type ConstraintRecord = z.infer<typeof constraintRecordSchema>;
export type NextAction = z.infer<typeof nextActionSchema>;
export type CheckpointMemory = z.infer<typeof checkpointMemorySchema>;
export type DigestEntry = z.infer<typeof digestEntrySchema>;
export type CheckpointDigest = z.infer<typeof checkpointDigestSchema>;
export type StructuredSummary = z.infer<typeof structuredSummarySchema>;
export type OpaqueReference = z.infer<typeof opaqueReferenceSchema>;
export type CheckpointSource = z.infer<typeof checkpointSourceSchema>;
export type LineRegion = z.infer<typeof lineRegionSchema>;
export type WorkingSetFile = z.infer<typeof workingSetFileSchema>;
export type WorkingSet = z.infer<typeof workingSetSchema>;
export type ContextCheckpoint = z.infer<typeof contextCheckpointSchema>;
export type CheckpointStrategy = ContextCheckpoint['strategy'];
export type ForgeStateCheckpoint = Extract<ContextCheckpoint, { strategy: 'forge-state' }>;
export type ModelStructuredCheckpoint = Extract<ContextCheckpoint, { strategy: 'model-structured' }>;
export type ProviderNativeCheckpoint = Extract<ContextCheckpoint, { strategy: 'provider-native' }>;

/** Memory with nothing in it. */
export function emptyCheckpointMemory(): CheckpointMemory {
  return { plan: [], decisions: [], facts: [], rejectedApproaches: [], constraints: [], nextAction: null };
}
