import {
  readFilesInHand,
  workingSetShown,
  type ContextCheckpoint,
  type WorkingSetRenderInput,
} from '@forge/core/checkpoint';
import type { ArtifactHashSource, ResolvedCheckpoint } from './checkpoint-install.js';

/** How the shown text of files in hand is redacted (a session's redactor; `file` names the file). */
export type FileTextRedaction = (text: string, context?: { readonly file?: string }) => string;

/**
 * Reads a forge-state checkpoint's files in hand from disk through `source`, for a render: the
 * contents and the redaction to apply to them. Undefined when the checkpoint has no working set
 * or the source cannot read files (the section then lists the files without text). A read that
 * fails marks every file unreadable rather than showing old text.
 */
export async function readWorkingSet(
  checkpoint: ContextCheckpoint,
  source: ArtifactHashSource | undefined,
  redact: FileTextRedaction,
): Promise<WorkingSetRenderInput | undefined> {
  if (checkpoint.strategy !== 'forge-state' || checkpoint.workingSet === undefined || source?.readFiles === undefined)
    return undefined;
  return readFilesInHand(checkpoint.workingSet, source.readFiles, redact);
}

/** {@link readWorkingSet} for a stored checkpoint that resolved to a Forge checkpoint. */
export async function workingSetFor(
  resolved: ResolvedCheckpoint | undefined,
  source: ArtifactHashSource | undefined,
  redact: FileTextRedaction,
): Promise<WorkingSetRenderInput | undefined> {
  if (resolved === undefined || !resolved.ok || resolved.active.kind !== 'forge') return undefined;
  return readWorkingSet(resolved.active.checkpoint, source, redact);
}

/**
 * Tells `source` what the view about to be sent to the model shows of the working set (nothing,
 * when it sends no checkpoint or one without files in hand), so the read ledger accepts exactly those files.
 */
export function reportWorkingSetSent(
  source: ArtifactHashSource | undefined,
  checkpoint: ContextCheckpoint | undefined,
  input: WorkingSetRenderInput | undefined,
): void {
  if (source?.workingSetSent === undefined) return;
  const workingSet = checkpoint?.strategy === 'forge-state' ? checkpoint.workingSet : undefined;
  source.workingSetSent(workingSetShown(workingSet, input?.contents));
}
