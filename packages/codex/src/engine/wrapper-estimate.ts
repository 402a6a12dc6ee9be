import type { z } from 'zod';
import type { RenderedActiveView } from './active-view.js';
import type { wrapperTokenEstimateSchema } from './event-schemas.js';

/** Token cost of the wrapper by category (see `wrapperTokenEstimateSchema`). */
export type WrapperTokenEstimate = z.infer<typeof wrapperTokenEstimateSchema>;

/*
 * Bytes per token assumed. BPE tokenizers such as o200k average about four UTF-8 bytes per token
 * on English prose and code; assuming three makes the estimate err high (about a third) rather
 * than low, which is the safe side for a budget. Replace with core's conservative estimator once
 * the budget module exports one.
 */
const BYTES_PER_TOKEN = 3;

function tokensOf(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / BYTES_PER_TOKEN);
}

/**
 * A conservative over-estimate of what the wrapper costs (and the developer instructions a new
 * thread is given, when there are any). It counts only what Forge sends: Codex
 * adds its own base instructions, tool schemas and environment context, which Forge neither
 * controls nor counts.
 */
export function estimateWrapperTokens(view: RenderedActiveView, developerInstructions = ''): WrapperTokenEstimate {
  const developerBytes = Buffer.byteLength(developerInstructions, 'utf8');
  const bytes = Buffer.byteLength(view.text, 'utf8') + developerBytes;
  const sections = view.sections;
  const sectionBytes =
    developerBytes +
    [sections.instructions, sections.checkpoint, sections.history, sections.request].reduce(
      (total, text) => total + Buffer.byteLength(text, 'utf8'),
      0,
    );
  const categories = {
    instructions: tokensOf(sections.instructions) + tokensOf(developerInstructions),
    checkpoint: tokensOf(sections.checkpoint),
    history: tokensOf(sections.history),
    request: tokensOf(sections.request),
    overhead: Math.ceil(Math.max(0, bytes - sectionBytes) / BYTES_PER_TOKEN),
  };
  const tokens = Object.values(categories).reduce((total, value) => total + value, 0);
  return { tokens, method: 'conservative-fallback', confidence: 'estimated', bytes, categories };
}
