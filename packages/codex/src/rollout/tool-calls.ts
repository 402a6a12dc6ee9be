import type { JsonObject, JsonValue } from '@forge/core';
import type { ImportFacts } from './import-facts.js';
import { filesInPatch, type PatchedFile } from './patch-paths.js';
import { firstLine, outputBody, type ParsedToolOutput } from './tool-output.js';
import type { TranscriptBuilder } from './transcript-builder.js';

const commandTools = new Set(['exec_command', 'shell', 'shell_command', 'container.exec', 'local_shell']);

interface OpenCall {
  readonly kind: 'command' | 'patch' | 'other';
  readonly command: string;
  readonly files: readonly PatchedFile[];
  exitCode: number | undefined;
  status: string | undefined;
}

/**
 * Follows tool calls from call to output: puts both into the transcript and, for commands and
 * patches, records the host-owned facts (exit code, files touched, failures). Exit codes and
 * patch status reported by separate events before the output are merged in.
 */
export class ToolCallTracker {
  private readonly open = new Map<string, OpenCall>();
  private readonly builder: TranscriptBuilder;
  private readonly facts: ImportFacts;

  constructor(builder: TranscriptBuilder, facts: ImportFacts) {
    this.builder = builder;
    this.facts = facts;
  }

  get openCount(): number {
    return this.open.size;
  }

  call(callId: string, toolName: string, input: JsonValue): void {
    if (this.builder.isOpen(callId)) return;
    this.builder.toolCall(callId, toolName, input);
    const args = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as JsonObject) : {};
    if (toolName === 'apply_patch') {
      const patch =
        typeof args['patch'] === 'string' ? args['patch'] : typeof args['input'] === 'string' ? args['input'] : '';
      this.open.set(callId, openCall('patch', 'apply_patch', filesInPatch(patch)));
      return;
    }
    if (commandTools.has(toolName)) {
      const argv = args['command'] ?? args['cmd'];
      if (Array.isArray(argv) && argv[0] === 'apply_patch' && typeof argv[1] === 'string') {
        this.open.set(callId, openCall('patch', 'apply_patch', filesInPatch(argv[1])));
        return;
      }
      this.open.set(callId, openCall('command', commandText(argv), []));
      return;
    }
    this.open.set(callId, openCall('other', toolName, []));
  }

  /** An exit code or status Codex reported for a call before its output (item_completed and older end events). */
  report(callId: string, report: { readonly exitCode?: number | null; readonly status?: string }): void {
    const call = this.open.get(callId);
    if (call === undefined) return;
    if (report.exitCode !== undefined && report.exitCode !== null) call.exitCode = report.exitCode;
    if (report.status !== undefined) call.status = report.status;
  }

  output(callId: string, output: ParsedToolOutput, seq: number, cwd: string | null): void {
    const call = this.open.get(callId);
    const exitCode = call?.exitCode ?? output.exitCode;
    const declined = output.declined || call?.status === 'declined';
    const failed =
      declined || (exitCode !== undefined && exitCode !== 0) || output.success === false || call?.status === 'failed';
    const metadata: JsonObject = {
      importedFrom: 'codex-rollout',
      line: seq,
      ...(exitCode === undefined ? {} : { exitCode }),
      ...(declined ? { declined: true } : {}),
    };
    const accepted = this.builder.toolResult(
      callId,
      { type: failed ? 'error-text' : 'text', value: output.text },
      metadata,
    );
    if (!accepted || call === undefined) return;
    this.open.delete(callId);
    if (call.kind === 'command') {
      const status = declined
        ? 'declined'
        : exitCode === undefined
          ? 'no-result'
          : exitCode === 0
            ? 'succeeded'
            : 'failed';
      this.facts.addCommand({ callId, command: call.command, exitCode: exitCode ?? null, status, seq });
      if (status === 'failed')
        this.facts.addFailure({
          seq,
          kind: 'command',
          what: call.command,
          why: `exit code ${String(exitCode)}: ${firstLine(outputBody(output.text)) || 'no output'}`,
        });
      if (status === 'declined')
        this.facts.addFailure({ seq, kind: 'command', what: call.command, why: 'declined by the approval policy' });
    } else if (call.kind === 'patch') {
      const applied =
        !failed &&
        (exitCode === 0 || call.status === 'completed' || output.success === true || /^Success\b/m.test(output.text));
      const status = declined ? 'declined' : applied ? 'applied' : 'failed';
      this.facts.touchFiles(call.files, status, seq, cwd);
      if (status !== 'applied') {
        const what = `apply_patch ${call.files.map((file) => file.path).join(', ')}`.trim();
        const why = declined
          ? 'declined by the approval policy'
          : firstLine(outputBody(output.text)) || 'the patch did not apply';
        this.facts.addFailure({ seq, kind: 'patch', what, why });
      }
    }
  }

  /** Records calls that never got an output as `no-result` (the builder answers them in the transcript). */
  abandonOpen(seq: number, cwd: string | null): void {
    for (const [callId, call] of this.open) {
      if (call.kind === 'command')
        this.facts.addCommand({
          callId,
          command: call.command,
          exitCode: call.exitCode ?? null,
          status: 'no-result',
          seq,
        });
      else if (call.kind === 'patch') this.facts.touchFiles(call.files, 'no-result', seq, cwd);
    }
    this.open.clear();
  }
}

function openCall(kind: OpenCall['kind'], command: string, files: readonly PatchedFile[]): OpenCall {
  return { kind, command, files, exitCode: undefined, status: undefined };
}

/** The command a shell tool ran: the script of `bash -lc SCRIPT`, else the words joined. */
function commandText(argv: JsonValue | undefined): string {
  if (typeof argv === 'string') return argv;
  if (!Array.isArray(argv)) return '';
  const words = argv.map((word) => (typeof word === 'string' ? word : JSON.stringify(word)));
  if (words.length >= 3 && (words[1] === '-lc' || words[1] === '-c')) return words.slice(2).join(' ');
  return words.join(' ');
}

/** Tool-call arguments as JSON, or the raw text when they are not JSON. */
export function parseArguments(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return { arguments: text };
  }
}
