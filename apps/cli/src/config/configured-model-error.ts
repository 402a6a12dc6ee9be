import type { ValueProvenance } from '@forge/config';
import { UsageError } from '../cli-error.js';

/** Where a configured value came from, as a user reads it: the file and which layer it is. */
export function describeOrigin(provenance: ValueProvenance | undefined): string {
  if (provenance === undefined || provenance.source === 'default') return 'the default';
  if (provenance.source === 'flag') return 'the command line';
  if (provenance.source === 'env') return `$${provenance.variable ?? 'the environment'}`;
  return `${provenance.file ?? 'a file'} (${provenance.source} configuration)`;
}

/** A configured model id (`model`, `context.compaction.model`) and where it was set. */
export interface ModelReference {
  readonly key: string;
  readonly value: string;
  readonly provenance: ValueProvenance | undefined;
}

/** A model id the configuration names that cannot be used: which key holds it, where it was set, and why. */
export class ConfiguredModelError extends UsageError {
  readonly reference: ModelReference;
  readonly reason: string;

  constructor(reference: ModelReference, reason: string) {
    super(`${reference.key} "${reference.value}" from ${describeOrigin(reference.provenance)}: ${reason}`);
    this.name = 'ConfiguredModelError';
    this.reference = reference;
    this.reason = reason;
  }
}

/**
 * The usage error of a configured model id that cannot be resolved, naming the key and the file
 * it was set in, so the user knows what to edit. A value from the command line (or the default)
 * keeps its error unchanged: the flag is already named.
 */
export function configuredModelError(error: unknown, reference: ModelReference): unknown {
  const source = reference.provenance?.source;
  if (source === undefined || source === 'default' || source === 'flag' || !(error instanceof UsageError)) return error;
  if (error instanceof ConfiguredModelError) return error;
  return new ConfiguredModelError(reference, error.message);
}
