import type { ToolCallRequest } from '@forge/core';
import { terminalLine } from '@forge/core/terminal';
import type { ConfirmAnswer } from '@forge/tools';
import type { Style } from '../output/style.js';
import { APPROVAL_CHOICES, parseApprovalAnswer } from './approval-answer.js';
import type { LineReader } from './line-reader.js';

/**
 * Asks the user about one confirm-level tool call and waits for a usable answer. `preview` (for
 * edits, the diff of what would change) is printed under the question. Ending the input denies
 * the call; cancelling the run (Ctrl-C) rejects, which the loop records as cancelled.
 */
export async function askApproval(options: {
  readonly request: ToolCallRequest;
  readonly signal: AbortSignal;
  readonly reader: LineReader;
  readonly style: Style;
  readonly print: (text: string) => void;
  readonly preview?: string;
}): Promise<ConfirmAnswer> {
  const { request, signal, reader, style, print } = options;
  // Leaving the sandbox has a question of its own, so it is never mistaken for an ordinary command.
  const question =
    request.escalation === undefined
      ? `Allow ${request.risk === 'execute' ? 'command' : request.risk}?`
      : `Allow command outside the sandbox (${terminalLine(request.escalation.label)})?`;
  // The summary names what a model, a file or an MCP server chose: it never reaches the terminal raw.
  print(`${style.yellow(question)} ${terminalLine(request.summary)}\n`);
  // The preview is Forge's own coloured diff, its text sanitized line by line (see previewEdit).
  if (options.preview !== undefined) print(options.preview);
  for (;;) {
    const line = await reader.next(`${APPROVAL_CHOICES} › `, { signal, remember: false });
    if (line === undefined) return { kind: 'deny', feedback: 'the input ended before the user answered' };
    const answer = parseApprovalAnswer(line);
    if (answer !== undefined) return answer;
    print(
      'Answer y (once), s (this session) or n (deny; add feedback after it, e.g. "n use the test script instead").\n',
    );
  }
}
