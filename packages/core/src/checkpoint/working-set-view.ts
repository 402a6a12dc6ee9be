import type { WorkingSet } from './schema.js';
import { shortHash } from './text.js';
import type { ViewWriter } from './view-format.js';
import { layoutWorkingSet, type WorkingSetEntry, type WorkingSetRenderInput } from './working-set.js';

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function describeShown(entry: Extract<WorkingSetEntry, { kind: 'shown' }>): string {
  const changed =
    entry.file.hash !== null && entry.file.hash !== entry.sha256
      ? ', changed on disk since it was last read or edited'
      : '';
  const head = `- file:${entry.file.path} sha256 ${shortHash(entry.sha256)}`;
  if (entry.region === null) return `${head}, whole file, ${plural(entry.totalLines, 'line')}${changed}`;
  const range = `lines ${entry.region.startLine}-${entry.region.endLine} of ${entry.totalLines}`;
  let what = '(the region last read or edited)';
  if (entry.file.region === null) what = '(the start of the file, cut at the cap)';
  else if (entry.cut) what = '(part of the region last read or edited, cut at the cap)';
  return `${head}, ${range} ${what}${changed}`;
}

/**
 * The `[WORKING_SET]` section: a count line, then each file in hand with a line naming it and its
 * current hash, followed by its shown text, every line prefixed with "| " (a lone "|" for an empty
 * line) so that no line of a file can pass for a section of the checkpoint. Shown text is
 * redacted; the hash is of the file's real bytes. Without `input` (no workspace at hand) the files
 * are listed without text.
 */
export function renderWorkingSet(
  writer: ViewWriter,
  workingSet: WorkingSet,
  input: WorkingSetRenderInput | undefined,
): void {
  writer.line('[WORKING_SET]');
  if (workingSet.files.length === 0) {
    writer.line('- (none)');
    writer.line('');
    return;
  }
  const entries = layoutWorkingSet(workingSet, input?.contents);
  const shown = entries.filter((entry) => entry.kind === 'shown').length;
  writer.line(
    input === undefined
      ? `files in hand: ${shown}, not read from disk for this render; read_file them before relying on them`
      : `files in hand: ${shown}, read from disk when this checkpoint was rendered; edit them without reading again`,
  );
  for (const entry of entries) {
    if (entry.kind === 'not-shown') {
      writer.line(
        `- file:${entry.file.path}${entry.sha256 === null ? '' : ` sha256 ${shortHash(entry.sha256)}`}, ${entry.reason}`,
      );
      continue;
    }
    writer.line(describeShown(entry));
    if (entry.lines.length === 0) continue;
    const text = (input as WorkingSetRenderInput).redact(entry.lines.join('\n'), { file: entry.file.path });
    for (const line of text.split('\n')) writer.line(line.length === 0 ? '|' : `| ${line}`);
  }
  writer.line('');
}
