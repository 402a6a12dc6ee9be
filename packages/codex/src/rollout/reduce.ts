import { createHash, type Hash } from 'node:crypto';
import { sha256Hex, type Message } from '@forge/core';
import { isHarnessRole, spokenUserText } from './harness-context.js';
import { truncateText } from '@forge/core/checkpoint';
import { ImportFacts, compareStrings } from './import-facts.js';
import { importStateLimits, type CodexImportState } from './import-state.js';
import {
  compactedSchema,
  compactionItemSchema,
  customToolCallItemSchema,
  functionCallItemSchema,
  localShellCallItemSchema,
  messageItemSchema,
  reasoningItemSchema,
  rolloutLineSchema,
  sessionMetaSchema,
  toolOutputItemSchema,
  turnContextSchema,
  type MessageItem,
} from './rollout-schema.js';
import { applyEvent, type RolloutEventTarget } from './rollout-events.js';
import { ToolCallTracker, parseArguments } from './tool-calls.js';
import { parseToolOutput } from './tool-output.js';
import { TranscriptBuilder } from './transcript-builder.js';

const responseItemTypes = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'compaction',
  'web_search_call',
]);
const ignoredLineTypes = new Set(['world_state', 'token_usage_record']);
/** User messages remembered to recognise their copies in a compaction's replacement history. */
const SEEN_USER_TEXTS = 4096;

/** What the caller knows about the file the lines came from. */
export interface RolloutSourceSummary {
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * Reduces rollout lines, in file order, to a transcript (streamed to `onMessage`) and the
 * import state. Pure apart from the callback: no clock, no file system. A line that is not JSON,
 * has an unknown type or fails its schema is counted and skipped; nothing a line contains can
 * make it throw.
 */
export class RolloutReducer {
  private readonly builder: TranscriptBuilder;
  private readonly transcriptHash: Hash = createHash('sha256');
  private readonly facts: ImportFacts;
  private readonly calls: ToolCallTracker;
  private readonly eventTarget: RolloutEventTarget;
  private readonly seenUserTexts = new Set<string>();
  private readonly unknownTypes = new Set<string>();
  private meta:
    | {
        sessionId: string | null;
        cliVersion: string | null;
        originator: string | null;
        modelProvider: string | null;
        cwd: string | null;
      }
    | undefined;
  private model: string | null = null;
  private cwd: string | null = null;
  private task: CodexImportState['task'] = null;
  private currentMarkers = 0;
  private legacyMarkers = 0;
  private lines = 0;
  private seq = 0;
  private malformedLines = 0;
  private unknownLines = 0;
  private harnessMessages = 0;
  private tornTail = false;
  private oversizedLines = 0;

  private readonly rethrow: boolean;

  /** `rethrow` (for tests) lets an internal error escape instead of counting the line as malformed. */
  constructor(onMessage: (message: Message) => void, options: { readonly rethrow?: boolean } = {}) {
    this.rethrow = options.rethrow ?? false;
    this.builder = new TranscriptBuilder((message) => {
      this.transcriptHash.update(`${JSON.stringify(message)}\n`);
      onMessage(message);
    });
    this.facts = new ImportFacts(() => this.builder.messageCount);
    this.calls = new ToolCallTracker(this.builder, this.facts);
    this.eventTarget = {
      facts: this.facts,
      calls: this.calls,
      userMessage: (text, seq) => this.userMessage(text, 'event_msg', seq),
      assistantText: (text) => this.builder.assistantText(text, 'event_msg'),
      closeTurn: (seq) => this.closeTurn(seq),
      harnessMessage: () => (this.harnessMessages += 1),
      mark: (generation) => (generation === 'current' ? (this.currentMarkers += 1) : (this.legacyMarkers += 1)),
      malformed: () => this.malformed(),
      unknown: (type) => this.unknown(type),
    };
  }

  /**
   * Applies one line. `mayBeTorn` marks the file's last line when the file does not end in a
   * newline: if it does not parse, it is a torn write, not a malformed record.
   */
  applyLine(line: string, seq: number, mayBeTorn = false): void {
    this.lines += 1;
    this.seq = seq;
    if (line.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (mayBeTorn) this.tornTail = true;
      else this.malformedLines += 1;
      return;
    }
    try {
      this.dispatch(value, seq);
    } catch (error) {
      if (this.rethrow) throw error;
      this.malformedLines += 1;
    }
  }

  /** The workspace the rollout records so far (its session metadata, else the latest turn context). */
  get recordedCwd(): string | null {
    return this.meta?.cwd ?? this.cwd;
  }

  /** Counts a line too long to read; it is skipped whole, like a malformed one, but reported on its own. */
  skipOversizedLine(seq: number): void {
    this.lines += 1;
    this.seq = seq;
    this.oversizedLines += 1;
  }

  /** Closes the open turn and returns the state (workspace hashes not yet computed). */
  finish(source: RolloutSourceSummary): CodexImportState {
    this.closeTurn();
    const facts = this.facts;
    const usage = facts.tokenUsage.recent();
    const compactions = facts.compactions.recent();
    return {
      schemaVersion: 1,
      kind: 'codex-rollout-import',
      source: {
        sessionId: this.meta?.sessionId ?? null,
        cliVersion: this.meta?.cliVersion ?? null,
        originator: this.meta?.originator ?? null,
        modelProvider: this.meta?.modelProvider ?? null,
        model: this.model,
        cwd: this.meta?.cwd ?? this.cwd,
        generation: this.currentMarkers > 0 ? 'current' : this.legacyMarkers > 0 ? 'legacy' : 'unknown',
        bytes: source.bytes,
        sha256: source.sha256,
        lines: this.lines,
        seq: this.seq,
      },
      skipped: {
        malformedLines: this.malformedLines,
        unknownLines: this.unknownLines,
        unknownTypes: [...this.unknownTypes].sort(compareStrings).slice(0, importStateLimits.unknownTypes),
        harnessMessages: this.harnessMessages,
        orphanToolOutputs: this.builder.orphanOutputs,
        tornTail: this.tornTail,
        oversizedLines: this.oversizedLines,
      },
      task: this.task,
      commands: { total: facts.commands.total, recent: facts.commands.recent() },
      artifacts: facts.artifacts(),
      recentArtifacts: facts.recentArtifacts(),
      failures: { total: facts.failures.total, recent: facts.failures.recent() },
      tokenUsage: { reports: facts.tokenUsage.total, latest: usage.at(-1) ?? null, history: usage },
      compactions: { total: facts.compactions.total, recent: compactions },
      transcript: {
        messages: this.builder.messageCount,
        toolCalls: this.builder.toolCallCount,
        sha256: this.transcriptHash.digest('hex'),
      },
      workspace: { root: null, hashed: false },
    };
  }

  private dispatch(value: unknown, seq: number): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.malformedLines += 1;
      return;
    }
    const record = value as Record<string, unknown>;
    if (!('payload' in record) && typeof record['type'] === 'string' && responseItemTypes.has(record['type'])) {
      this.legacyMarkers += 1;
      this.responseItem(record, seq);
      return;
    }
    if (!('type' in record)) {
      if (seq === 1 && typeof record['id'] === 'string') this.sessionMeta(record);
      else if ('record_type' in record) this.legacyMarkers += 1;
      else this.unknown('untyped');
      return;
    }
    const line = rolloutLineSchema.safeParse(value);
    if (!line.success) {
      this.malformedLines += 1;
      return;
    }
    const { type, payload } = line.data;
    switch (type) {
      case 'session_meta':
        this.sessionMeta(payload);
        return;
      case 'turn_context': {
        const context = turnContextSchema.safeParse(payload);
        if (!context.success) return this.malformed();
        if (context.data.cwd !== undefined) this.cwd = context.data.cwd;
        if (context.data.model !== undefined) this.model = context.data.model;
        return;
      }
      case 'response_item':
        this.responseItem(payload, seq);
        return;
      case 'event_msg':
        applyEvent(payload, seq, this.eventTarget);
        return;
      case 'compacted':
        this.compacted(payload, seq);
        return;
      default:
        if (ignoredLineTypes.has(type)) this.currentMarkers += 1;
        else this.unknown(type);
    }
  }

  private sessionMeta(payload: unknown): void {
    const meta = sessionMetaSchema.safeParse(payload);
    if (!meta.success) return this.malformed();
    if (this.meta !== undefined) return;
    this.meta = {
      sessionId: meta.data.id ?? meta.data.session_id ?? null,
      cliVersion: meta.data.cli_version ?? null,
      originator: meta.data.originator ?? null,
      modelProvider: meta.data.model_provider ?? null,
      cwd: meta.data.cwd ?? null,
    };
    this.cwd ??= this.meta.cwd;
  }

  private responseItem(payload: unknown, seq: number): void {
    const itemType = typeof payload === 'object' && payload !== null ? (payload as { type?: unknown }).type : undefined;
    switch (itemType) {
      case 'message': {
        const message = messageItemSchema.safeParse(payload);
        if (!message.success) return this.malformed();
        this.message(message.data, seq);
        return;
      }
      case 'reasoning': {
        const reasoning = reasoningItemSchema.safeParse(payload);
        if (!reasoning.success) return this.malformed();
        const texts = [...(reasoning.data.summary ?? []), ...(reasoning.data.content ?? [])].map(
          (part) => part.text ?? '',
        );
        this.builder.reasoning(texts.filter((text) => text.length > 0).join('\n'));
        return;
      }
      case 'function_call': {
        const call = functionCallItemSchema.safeParse(payload);
        if (!call.success) return this.malformed();
        const input = parseArguments(call.data.arguments);
        const name = call.data.namespace ? `${call.data.namespace}.${call.data.name}` : call.data.name;
        this.calls.call(call.data.call_id, name, input);
        return;
      }
      case 'custom_tool_call': {
        const call = customToolCallItemSchema.safeParse(payload);
        if (!call.success) return this.malformed();
        this.calls.call(
          call.data.call_id,
          call.data.name,
          call.data.name === 'apply_patch' ? { patch: call.data.input } : { input: call.data.input },
        );
        return;
      }
      case 'local_shell_call': {
        const call = localShellCallItemSchema.safeParse(payload);
        if (!call.success) return this.malformed();
        this.legacyMarkers += 1;
        const callId = call.data.call_id ?? call.data.id;
        if (callId === null || callId === undefined) return this.malformed();
        this.calls.call(callId, 'local_shell', { command: call.data.action.command });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const output = toolOutputItemSchema.safeParse(payload);
        if (!output.success) return this.malformed();
        this.calls.output(output.data.call_id, parseToolOutput(output.data.output), seq, this.cwd);
        return;
      }
      case 'compaction': {
        const compaction = compactionItemSchema.safeParse(payload);
        if (!compaction.success) return this.malformed();
        this.builder.settle();
        this.facts.addCompaction({
          seq,
          kind: 'remote',
          transcriptIndex: this.builder.messageCount,
          summarySha256: null,
          summaryChars: 0,
          opaqueSha256: sha256Hex(compaction.data.encrypted_content),
          replacementItems: null,
        });
        return;
      }
      default:
        this.unknown(`response_item.${typeof itemType === 'string' ? itemType : 'untyped'}`);
    }
  }

  private message(message: MessageItem, seq: number): void {
    if (isHarnessRole(message.role)) {
      this.harnessMessages += 1;
      return;
    }
    if (message.role === 'assistant') {
      const parts = typeof message.content === 'string' ? [{ text: message.content }] : message.content;
      this.builder.assistantText(
        parts
          .map((part) => part.text ?? '')
          .filter((text) => text.length > 0)
          .join('\n'),
        'response_item',
      );
      return;
    }
    if (message.role !== 'user') return this.unknown(`message.${message.role}`);
    const text = spokenUserText(message);
    if (text === undefined) this.harnessMessages += 1;
    else this.userMessage(text, 'response_item', seq);
  }

  private userMessage(text: string, source: 'response_item' | 'event_msg', seq: number): void {
    const open = this.calls.openCount;
    if (!this.builder.user(text, source)) return;
    if (open > 0) this.calls.abandonOpen(seq, this.cwd);
    this.seenUserTexts.add(sha256Hex(text.trim()));
    // Codex's replacement history repeats recent user messages only; older hashes need not be kept.
    if (this.seenUserTexts.size > SEEN_USER_TEXTS)
      this.seenUserTexts.delete(this.seenUserTexts.values().next().value as string);
    const messageIndex = this.builder.messageCount - 1;
    this.task = {
      text: truncateText(text.trim(), importStateLimits.taskChars),
      evidence: { source: 'user', line: seq, messageIndex },
    };
  }

  private compacted(payload: unknown, seq: number): void {
    const compacted = compactedSchema.safeParse(payload);
    if (!compacted.success) return this.malformed();
    const summary = compacted.data.message;
    const replacement = compacted.data.replacement_history;
    this.builder.settle();
    let opaque: string | null = null;
    if (replacement !== null && replacement !== undefined) {
      this.currentMarkers += 1;
      for (const item of replacement) {
        const compactionItem = compactionItemSchema.safeParse(item);
        if (compactionItem.success) {
          opaque = sha256Hex(compactionItem.data.encrypted_content);
          continue;
        }
        this.replayRetainedUserMessage(item, summary, seq);
      }
    } else {
      this.legacyMarkers += 1;
    }
    this.facts.addCompaction({
      seq,
      kind: opaque !== null ? 'remote' : replacement === null || replacement === undefined ? 'legacy' : 'local',
      transcriptIndex: this.builder.messageCount,
      summarySha256: summary.length === 0 ? null : sha256Hex(summary),
      summaryChars: summary.length,
      opaqueSha256: opaque,
      replacementItems: replacement === null || replacement === undefined ? null : replacement.length,
    });
  }

  /**
   * Codex's replacement history repeats the user messages it kept. Ones the transcript already
   * has are skipped; one it lacks (a file that starts mid-session) is added before the boundary.
   */
  private replayRetainedUserMessage(item: unknown, summary: string, seq: number): void {
    const message = messageItemSchema.safeParse(item);
    if (!message.success || message.data.role !== 'user') return;
    const text = spokenUserText(message.data);
    if (text === undefined || text.trim() === summary.trim() || this.seenUserTexts.has(sha256Hex(text.trim()))) return;
    this.userMessage(text, 'response_item', seq);
  }

  private closeTurn(seq = this.seq): void {
    if (this.calls.openCount > 0) this.calls.abandonOpen(seq, this.cwd);
    this.builder.closeTurn();
  }

  private malformed(): void {
    this.malformedLines += 1;
  }

  private unknown(type: string): void {
    this.unknownLines += 1;
    if (this.unknownTypes.size < importStateLimits.unknownTypes * 4) this.unknownTypes.add(type);
  }
}
