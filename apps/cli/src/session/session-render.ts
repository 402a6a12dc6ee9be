import { formatMessageRange } from '@forge/core/budget';
import { truncateText } from '@forge/core/checkpoint';
import type { Message, ToolResultOutput } from '@forge/core';
import { terminalLine, terminalText } from '@forge/core/terminal';
import type { SessionRun, SessionSummary, SessionTranscript } from '@forge/persistence';
import { displayPath } from '@forge/tools';
import type { Style } from '../output/style.js';

const INLINE_CHARS = 120;

/** `2025-06-02 09:30` in local time; an empty or invalid time stays readable. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (iso === '' || Number.isNaN(date.getTime())) return '-';
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** Stored text (a model's, a tool's, a server's) on one terminal line: escapes shown, never interpreted. */
function oneLine(text: string, limit = INLINE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return terminalLine(truncateText(flat, limit));
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The table of `forge sessions list` and `/sessions`; `current` marks the session in use. */
export function renderSessionList(
  sessions: readonly SessionSummary[],
  options: { readonly style: Style; readonly current?: string },
): string {
  const { style } = options;
  const rows = sessions.map((session) => ({
    marker: session.id === options.current ? '*' : ' ',
    id: session.id,
    updated: formatTime(session.updatedAt),
    messages: session.problem === undefined ? String(session.messageCount) : '?',
    workspace: session.workspaceRoot === null ? '-' : displayPath(session.workspaceRoot),
    first: session.problem === undefined ? terminalLine(session.firstUserLine ?? '') : oneLine(session.problem),
    broken: session.problem !== undefined,
  }));
  const idWidth = Math.max(2, ...rows.map((row) => row.id.length));
  const workspaceWidth = Math.min(40, Math.max(9, ...rows.map((row) => row.workspace.length)));
  const header = style.dim(
    `  ${'ID'.padEnd(idWidth)}  ${'UPDATED'.padEnd(16)}  ${'MSGS'.padStart(5)}  ${'WORKSPACE'.padEnd(workspaceWidth)}  FIRST REQUEST`,
  );
  const lines = rows.map((row) => {
    const line = `${row.marker} ${row.id.padEnd(idWidth)}  ${row.updated.padEnd(16)}  ${row.messages.padStart(5)}  ${row.workspace.padEnd(workspaceWidth)}  ${row.first}`;
    return row.broken ? style.red(line) : line;
  });
  return `${[header, ...lines].join('\n')}\n`;
}

function renderOutput(output: ToolResultOutput): string {
  const text = output.type === 'json' ? JSON.stringify(output.value) : output.value;
  return `${oneLine(text, 80)} ${`(${text.length} chars)`}`;
}

function indentBody(text: string): string {
  return terminalText(text)
    .trimEnd()
    .split('\n')
    .map((line) => (line.trim() === '' ? '' : `     ${line}`))
    .join('\n');
}

/**
 * One transcript message for reading: user and assistant text in full, reasoning as a dim
 * note, and each tool call and each tool result on one line. `number` is the message's index from
 * 0, as every output and the checkpoint view number messages.
 */
export function renderMessage(message: Message, number: number, style: Style): string {
  const label = style.dim(`#${number}`);
  switch (message.role) {
    case 'user':
      return `${label} ${style.bold('user')}\n${indentBody(message.content)}`;
    case 'assistant': {
      const lines = [`${label} ${style.bold('assistant')}`];
      for (const part of message.content) {
        if (part.type === 'text') lines.push(indentBody(part.text));
        else if (part.type === 'reasoning')
          lines.push(style.dim(`     (reasoning: ${part.text.length === 0 ? 'opaque' : oneLine(part.text, 80)})`));
        else
          lines.push(
            `     → ${terminalLine(part.toolName)} ${oneLine(JSON.stringify(part.input))} ${style.dim(`[${terminalLine(part.toolCallId)}]`)}`,
          );
      }
      return lines.join('\n');
    }
    case 'tool':
      return [
        `${label} ${style.bold('tool')}`,
        ...message.content.map((part) => {
          const line = `     ← ${terminalLine(part.toolName)} ${part.output.type === 'error-text' ? 'error' : 'ok'}: ${renderOutput(part.output)}`;
          return part.output.type === 'error-text' ? style.yellow(line) : line;
        }),
      ].join('\n');
  }
}

function renderRun(run: SessionRun, style: Style): string {
  const status = run.status ?? 'unfinished';
  const facts = [
    run.model === undefined ? undefined : `${run.model.provider}:${run.model.modelId}`,
    run.steps === undefined ? undefined : plural(run.steps, 'step'),
    run.usage?.inputTokens === undefined
      ? undefined
      : `${run.usage.inputTokens} in${run.usage.cacheReadTokens === undefined || run.usage.cacheReadTokens === 0 ? '' : ` (${run.usage.cacheReadTokens} cached)`} / ${run.usage.outputTokens ?? 0} out tokens${run.engine?.name === 'codex' ? ' reported by Codex' : ''}`,
    run.engine?.thread === undefined ? undefined : `thread ${run.engine.thread.id}`,
    run.engine?.compactions === undefined || run.engine.compactions === 0
      ? undefined
      : `${plural(run.engine.compactions, 'Codex compaction')}`,
    `from #${run.firstMessageIndex}`,
    run.startedAt === undefined ? undefined : formatTime(run.startedAt),
  ].filter((fact): fact is string => fact !== undefined);
  const statusText =
    status === 'completed'
      ? style.green(status)
      : status === 'failed' || status === 'unfinished'
        ? style.red(status)
        : style.yellow(status);
  const error =
    run.error === undefined ? '' : `\n     ${style.dim(`${run.error.code}: ${oneLine(run.error.message)}`)}`;
  return `  ${run.runId}  ${statusText}  ${style.dim(facts.join(' · '))}${error}`;
}

/** `forge sessions show`: the header, the runs and their outcomes, then every message. */
export function renderSessionDetail(session: SessionTranscript, style: Style): string {
  const checkpoint =
    session.checkpoint === undefined
      ? 'none'
      : `summarizes messages ${formatMessageRange(0, session.checkpoint.source.summarizedThrough)}, tail from #${session.checkpoint.source.tailStart} (${formatTime(session.checkpoint.recordedAt)})`;
  const lines = [
    style.bold(`Session ${session.id}`),
    `  created     ${formatTime(session.createdAt)}`,
    `  updated     ${formatTime(session.updatedAt)}`,
    `  workspace   ${session.workspaceRoot ?? '-'}`,
    `  schema      v${session.schemaVersion}${session.migratedFrom === undefined ? '' : ` (migrated from v${session.migratedFrom.version})`}`,
    `  checkpoint  ${checkpoint}`,
    '',
    style.bold(`Runs (${session.runs.length})`),
    ...(session.runs.length === 0 ? ['  none'] : session.runs.map((run) => renderRun(run, style))),
    '',
    style.bold(`Messages (${session.messages.length})`),
    ...session.messages.map((message, index) => renderMessage(message, index, style)),
    ...session.warnings.map((warning) => style.yellow(`warning: ${warning.message}`)),
  ];
  return `${lines.join('\n')}\n`;
}
