import { isAbsolute, posix, relative, sep } from 'node:path';
import { truncateText } from '@forge/core/checkpoint';
import {
  importStateLimits,
  type CommandRecord,
  type CompactionRecord,
  type FailureRecord,
  type FileArtifact,
  type TokenUsageRecord,
} from './import-state.js';
import type { PatchedFile } from './patch-paths.js';

/** Keeps the newest `limit` entries of a list. */
class BoundedList<T> {
  private items: T[] = [];
  total = 0;
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  push(item: T): void {
    this.total += 1;
    this.items.push(item);
    if (this.items.length > this.limit * 2) this.items = this.items.slice(-this.limit);
  }

  last(): T | undefined {
    return this.items.at(-1);
  }

  replaceLast(item: T): void {
    this.items[this.items.length - 1] = item;
  }

  recent(): T[] {
    return this.items.slice(-this.limit);
  }
}

/**
 * The host-owned facts of an import (commands, files touched, failures, token usage,
 * compactions), each kept in a bounded list with deterministic eviction (oldest first).
 */
export class ImportFacts {
  readonly commands = new BoundedList<CommandRecord>(importStateLimits.recentCommands);
  readonly failures = new BoundedList<FailureRecord>(importStateLimits.recentFailures);
  readonly tokenUsage = new BoundedList<TokenUsageRecord>(importStateLimits.tokenUsageHistory);
  readonly compactions = new BoundedList<CompactionRecord>(importStateLimits.recentCompactions);
  private readonly artifactsByUri = new Map<string, FileArtifact>();
  private recent: string[] = [];
  private readonly messageIndex: () => number;

  /** `messageIndex` tells the index the next transcript message will get; records are stamped with it. */
  constructor(messageIndex: () => number) {
    this.messageIndex = messageIndex;
  }

  addCommand(record: Omit<CommandRecord, 'label' | 'messageIndex'>): void {
    this.commands.push({
      ...record,
      command: truncateText(record.command, importStateLimits.commandChars),
      messageIndex: this.messageIndex(),
      label: 'historical',
    });
  }

  addFailure(record: Omit<FailureRecord, 'messageIndex'>): void {
    this.failures.push({
      seq: record.seq,
      messageIndex: this.messageIndex(),
      kind: record.kind,
      what: truncateText(record.what, importStateLimits.failureChars),
      why: truncateText(record.why, importStateLimits.failureChars),
    });
  }

  addTokenUsage(record: TokenUsageRecord): void {
    this.tokenUsage.push(record);
  }

  addCompaction(record: CompactionRecord): void {
    const previous = this.compactions.last();
    if (
      previous !== undefined &&
      record.opaqueSha256 !== null &&
      previous.opaqueSha256 === record.opaqueSha256 &&
      previous.transcriptIndex === record.transcriptIndex
    ) {
      this.compactions.replaceLast({
        ...previous,
        replacementItems: record.replacementItems ?? previous.replacementItems,
      });
      return;
    }
    this.compactions.push(record);
  }

  /** Records the files of a finished patch; `cwd` makes absolute paths inside it workspace-relative. */
  touchFiles(
    files: readonly PatchedFile[],
    status: FileArtifact['lastPatchStatus'],
    seq: number,
    cwd: string | null,
  ): void {
    for (const file of files) {
      const uri = toUri(file.path, cwd);
      const previous = this.artifactsByUri.get(uri);
      this.artifactsByUri.delete(uri);
      this.artifactsByUri.set(uri, {
        uri,
        kind: 'file',
        lastChange: file.change,
        lastPatchStatus: status,
        patches: (previous?.patches ?? 0) + 1,
        lastObservedSeq: seq,
        lastMessageIndex: this.messageIndex(),
        hash: null,
        hashStatus: 'unknown',
      });
      if (this.artifactsByUri.size > importStateLimits.artifacts) {
        const oldest = this.artifactsByUri.keys().next().value;
        if (oldest !== undefined) this.artifactsByUri.delete(oldest);
      }
      this.recent = [uri, ...this.recent.filter((entry) => entry !== uri)].slice(0, importStateLimits.recentArtifacts);
    }
  }

  artifacts(): FileArtifact[] {
    return [...this.artifactsByUri.values()].sort((left, right) => compareStrings(left.uri, right.uri));
  }

  recentArtifacts(): string[] {
    return [...this.recent];
  }
}

/** Code-unit order, independent of locale. */
export function compareStrings(left: string, right: string): number {
  if (left < right) return -1;
  return left > right ? 1 : 0;
}

function toUri(path: string, cwd: string | null): string {
  if (!isAbsolute(path)) return posix.normalize(path.split(sep).join('/'));
  if (cwd !== null) {
    const inside = relative(cwd, path);
    if (inside.length > 0 && !inside.startsWith('..') && !isAbsolute(inside)) return inside.split(sep).join('/');
  }
  return path;
}
