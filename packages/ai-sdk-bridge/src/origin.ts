import type { JsonObject, ReasoningPart } from '@forge/core';

/** The provider and model that produced a reasoning part. */
export interface ModelOrigin {
  readonly provider: string;
  readonly modelId: string;
}

/** The provider-metadata key under which Forge records a part's origin; providers ignore it. */
export const ORIGIN_KEY = 'forge';

/** `metadata` with the origin added, so the part can later be sent back only where it came from. */
export function withOrigin(metadata: JsonObject | undefined, origin: ModelOrigin): JsonObject {
  return { ...metadata, [ORIGIN_KEY]: { provider: origin.provider, modelId: origin.modelId } };
}

/** True when `part` was produced by exactly this provider and model. */
export function hasOrigin(part: ReasoningPart, origin: ModelOrigin): boolean {
  const recorded = part.providerMetadata?.[ORIGIN_KEY];
  if (typeof recorded !== 'object' || recorded === null || Array.isArray(recorded)) return false;
  const fields = recorded as JsonObject;
  return fields['provider'] === origin.provider && fields['modelId'] === origin.modelId;
}
