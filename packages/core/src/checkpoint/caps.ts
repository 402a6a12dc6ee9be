import { z } from 'zod';

/**
 * Every bound of a checkpoint in one place. The builder and `applyMemoryUpdate` keep stored lists
 * within these counts; `renderCheckpointView` shows at most these counts and cuts every value and
 * line to these lengths, so the size of a view is known before it is rendered
 * (`checkpointViewCharBound`).
 *
 * Eviction is deterministic and never depends on a clock:
 * - facts: the least recently written (`seq`) goes first, ties broken by key (lexicographic);
 * - decisions: superseded decisions go first, then the oldest by `seq`, ties by id;
 * - plan steps: the oldest finished step goes first; a full plan of open steps refuses new steps;
 * - rejected approaches, constraints: the oldest by `seq` goes first (same text is kept once);
 * - artifacts: the least recently seen goes first, ties by uri;
 * - recent artifacts, commands, changed files, failures: only the most recent are kept.
 */
export interface CheckpointCaps {
  readonly maxFacts: number;
  readonly maxDecisions: number;
  readonly maxPlanSteps: number;
  readonly maxRejectedApproaches: number;
  readonly maxConstraints: number;
  /** Artifacts remembered with their hash (files, commands, tool outputs). */
  readonly maxArtifacts: number;
  /** Artifacts listed in the view's RECENT_ARTIFACTS section. */
  readonly maxRecentArtifacts: number;
  readonly maxCommands: number;
  readonly maxChangedFiles: number;
  readonly maxFailures: number;
  /** A memory update whose text field is longer than this is rejected, not cut. */
  readonly maxMemoryTextChars: number;
  /** Longest value (fact value, decision, command, reason...) shown in the view. */
  readonly maxValueChars: number;
  /** Longest task text kept and shown. */
  readonly maxTaskChars: number;
  /** Longest line of the rendered view; anything longer is cut. At least 128, so header lines stay whole. */
  readonly maxLineChars: number;
  /** Most characters one summarized message may take in the digest. */
  readonly maxDigestCharsPerMessage: number;
  /** Fewest characters a digest line gets; below this, messages are sampled instead of squeezed. */
  readonly minDigestCharsPerMessage: number;
  /** Most characters of the whole digest (excerpts only). */
  readonly maxDigestChars: number;
}

export const checkpointCapsSchema = z
  .object({
    maxFacts: z.number().int().min(0),
    maxDecisions: z.number().int().min(0),
    maxPlanSteps: z.number().int().min(0),
    maxRejectedApproaches: z.number().int().min(0),
    maxConstraints: z.number().int().min(0),
    maxArtifacts: z.number().int().min(0),
    maxRecentArtifacts: z.number().int().min(0),
    maxCommands: z.number().int().min(0),
    maxChangedFiles: z.number().int().min(0),
    maxFailures: z.number().int().min(0),
    maxMemoryTextChars: z.number().int().min(1),
    maxValueChars: z.number().int().min(2),
    maxTaskChars: z.number().int().min(2),
    maxLineChars: z.number().int().min(128),
    maxDigestCharsPerMessage: z.number().int().min(2),
    minDigestCharsPerMessage: z.number().int().min(2),
    maxDigestChars: z.number().int().min(0),
  })
  .strict()
  .refine((caps) => caps.minDigestCharsPerMessage <= caps.maxDigestCharsPerMessage, {
    message: 'minDigestCharsPerMessage must not exceed maxDigestCharsPerMessage',
  });

/** The default caps: a full view stays around 6–8K tokens. */
export const CHECKPOINT_CAPS: CheckpointCaps = Object.freeze({
  maxFacts: 64,
  maxDecisions: 32,
  maxPlanSteps: 32,
  maxRejectedApproaches: 16,
  maxConstraints: 24,
  maxArtifacts: 256,
  maxRecentArtifacts: 16,
  maxCommands: 24,
  maxChangedFiles: 64,
  maxFailures: 16,
  maxMemoryTextChars: 600,
  maxValueChars: 160,
  maxTaskChars: 2000,
  maxLineChars: 400,
  maxDigestCharsPerMessage: 240,
  minDigestCharsPerMessage: 48,
  maxDigestChars: 8000,
});
