import type { RequestView, Segment } from './request-view.js';
import { field } from './knowledge.js';

/*
 * What verbatim text the policy model can see in a request. A real model edits only text it has
 * in front of it and quotes only what it can read; so does the policy model. Text counts when it
 * is shown whole: a tool result as the tool returned it, the agent's own edits, a checkpoint line,
 * or a file block of the checkpoint's WORKING_SET section. A projected tool output (its excerpt
 * aside) and an out-of-date note stand for text that is no longer there.
 */

const PROJECTED = '[tool output projected:';
const OUT_OF_DATE = '[tool output out of date:';
const WORKING_SET_FILE = /^- file:(.+?) sha256 [0-9a-f]+,/;

/** True when a tool result no longer holds what the tool returned: projected, or marked out of date. */
export function replacedOutput(text: string): boolean {
  return text.startsWith(PROJECTED) || text.startsWith(OUT_OF_DATE);
}

/**
 * The files of the request's WORKING_SET section with their text (lines after the file's header,
 * the `| ` prefix stripped), by workspace-relative path, in the order shown.
 */
export function workingSetFiles(view: RequestView): Map<string, string> {
  const files = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const segment of view.segments) {
    if (segment.kind !== 'checkpoint' || segment.section !== 'WORKING_SET') {
      current = undefined;
      continue;
    }
    const header = WORKING_SET_FILE.exec(segment.text);
    if (header?.[1] !== undefined) {
      current = [];
      files.set(header[1], current);
    } else if (current !== undefined && segment.text.startsWith('|'))
      current.push(segment.text.startsWith('| ') ? segment.text.slice(2) : segment.text.slice(1));
    else current = undefined;
  }
  return new Map([...files].map(([path, lines]) => [path, lines.join('\n')]));
}

function isReadOf(segment: Segment, path: string): boolean {
  return (
    segment.kind === 'tool-result' &&
    segment.toolName === 'read_file' &&
    segment.failed !== true &&
    field(segment.callInput, 'path') === path &&
    !replacedOutput(segment.text)
  );
}

function isEditOf(segment: Segment, path: string): boolean {
  return (
    segment.kind === 'tool-call' &&
    segment.toolName === 'edit_file' &&
    segment.failed === false &&
    field(segment.input, 'path') === path
  );
}

/** What an edit of a known text makes of it; undefined when the edit's old text is not in it (the result is unknown). */
function applyEdit(text: string, input: Segment['input']): string | undefined {
  const mode = field(input, 'mode');
  const content = field(input, 'content');
  if (mode === 'rewrite' || mode === 'create') return typeof content === 'string' ? content : undefined;
  const old = field(input, 'old');
  const replacement = field(input, 'new');
  if (typeof old !== 'string' || typeof replacement !== 'string' || !text.includes(old)) return undefined;
  return text.replace(old, () => replacement);
}

/**
 * The texts of `path` the request shows as current: the latest full view of it (a visible read
 * or its WORKING_SET block) with every later edit the agent made applied, and the new text of
 * each of those edits. A text an edit cannot be applied to is dropped: the file changed in a way
 * the request does not show.
 */
export function currentTexts(view: RequestView, path: string): string[] {
  const workingSet = workingSetFiles(view).get(path);
  let texts: string[] = [];
  let workingSetSeen = false;
  for (const segment of view.segments) {
    if (
      !workingSetSeen &&
      workingSet !== undefined &&
      segment.kind === 'checkpoint' &&
      segment.section === 'WORKING_SET'
    ) {
      workingSetSeen = true;
      texts = [workingSet];
    } else if (isReadOf(segment, path)) texts = [segment.text];
    else if (isEditOf(segment, path)) {
      const written = field(segment.input, 'new') ?? field(segment.input, 'content');
      texts = texts.flatMap((text) => applyEdit(text, segment.input) ?? []);
      if (typeof written === 'string') texts.push(written);
    }
  }
  return texts;
}

/** True when the request shows `needed` as part of the current text of `path` (see {@link currentTexts}). */
export function textInView(view: RequestView, path: string, needed: string): boolean {
  return currentTexts(view, path).some((text) => text.includes(needed));
}

/**
 * True when `passage` is visible verbatim where tool output or memory of it is shown: a tool result
 * (a projection's excerpt included), a checkpoint line, or a WORKING_SET file. Never the user's
 * messages, the instructions or the agent's own prose.
 */
export function passageInView(view: RequestView, passage: string): boolean {
  for (const segment of view.segments) {
    if ((segment.kind === 'tool-result' || segment.kind === 'checkpoint') && segment.text.includes(passage))
      return true;
  }
  for (const text of workingSetFiles(view).values()) if (text.includes(passage)) return true;
  return false;
}
