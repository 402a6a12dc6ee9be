import { countTextConservatively, hashMessages, MessagesHasher, type Message } from '@forge/core';
import {
  buildDigest,
  capMemory,
  digestLayout,
  CHECKPOINT_CAPS,
  CHECKPOINT_SAFETY_LABELS,
  earlierRequests,
  emptyCheckpointMemory,
  MAX_EARLIER_REQUESTS,
  renderCheckpointView,
  truncateText,
  truncateWithoutClaims,
  userConstraints,
  type CheckpointCaps,
  type CheckpointState,
  type ConstraintRecord,
  type DigestEntry,
  type ForgeStateCheckpoint,
} from '@forge/core/checkpoint';
import { toCheckpointState } from './checkpoint-state.js';
import type { CodexImportState } from './import-state.js';

/** Keeps an evenly spread, bounded sample of digest entries of a stream of unknown length. */
class DigestSample {
  private entries: DigestEntry[] = [];
  private stride = 1;
  private last: (() => DigestEntry) | undefined;

  constructor(private readonly capacity: number) {}

  /** `make` is called only for entries the sample keeps (the latest one only at the end). */
  offer(seq: number, make: () => DigestEntry): void {
    if (seq % this.stride === 0) {
      this.entries.push(make());
      if (this.entries.length > this.capacity * 2) {
        this.stride *= 2;
        this.entries = this.entries.filter((entry) => entry.seq % this.stride === 0);
      }
      this.last = undefined;
    } else {
      this.last = make;
    }
  }

  /** The sample, ending with the latest entry offered. */
  finish(): DigestEntry[] {
    return this.last === undefined ? this.entries : [...this.entries, this.last()];
  }
}

/**
 * Builds the `forge-state` checkpoint of an imported Codex rollout while its transcript streams
 * into a session, holding only bounded state: the stored messages' hash, the user requests the
 * task section shows (the first, the latest and the most recent others), the constraints the user
 * stated, and an evenly spread sample of digest lines (half for user messages, as a native digest
 * gives them). Host-observed state (commands, files, failures) comes from the import state, with
 * the importer's own workspace hashes. Same messages and state, same bytes.
 */
export class ImportCheckpointBuilder {
  private readonly hasher = new MessagesHasher();
  private readonly users = new Map<number, string>();
  private readonly userDigest: DigestSample;
  private readonly otherDigest: DigestSample;
  private constraints: ConstraintRecord[] = [];
  private readonly seenConstraints = new Set<string>();
  private first: number | undefined;
  private count = 0;

  constructor(
    private readonly redact: (text: string) => string,
    private readonly caps: CheckpointCaps = CHECKPOINT_CAPS,
  ) {
    const slots = Math.max(1, Math.floor(caps.maxDigestChars / caps.minDigestCharsPerMessage));
    this.userDigest = new DigestSample(Math.ceil(slots / 2));
    this.otherDigest = new DigestSample(slots);
  }

  /** Observes the next stored message (as the session stored it: redacted). */
  add(message: Message): void {
    const seq = this.count;
    this.count += 1;
    this.hasher.add(message);
    const entry = (): DigestEntry => {
      const [digested] = buildDigest([{ message }], 1, this.caps, this.redact).entries;
      return { seq, role: message.role, text: digested?.text ?? '' };
    };
    if (message.role !== 'user') {
      this.otherDigest.offer(seq, entry);
      return;
    }
    this.userDigest.offer(seq, entry);
    this.first ??= seq;
    this.users.set(seq, message.content);
    this.keepRecentUsers();
    for (const constraint of userConstraints(new Map([[seq, message.content]]), this.caps, this.redact)) {
      if (this.seenConstraints.has(constraint.text)) continue;
      this.seenConstraints.add(constraint.text);
      this.constraints.push(constraint);
      if (this.constraints.length > this.caps.maxConstraints)
        this.constraints = this.constraints.slice(-this.caps.maxConstraints);
    }
  }

  /** Messages observed so far. */
  get messageCount(): number {
    return this.count;
  }

  /** The checkpoint of every observed message, with the host state taken from `state`. */
  finish(state: CodexImportState): ForgeStateCheckpoint {
    const count = this.count;
    const latest = [...this.users.keys()].at(-1) ?? null;
    const earlier = earlierRequests(this.users, latest, this.caps, this.redact);
    const hostState: CheckpointState = {
      ...toCheckpointState(state, this.caps),
      task:
        latest === null
          ? null
          : {
              text: truncateWithoutClaims(this.redact(this.users.get(latest) ?? '').trim(), this.caps.maxTaskChars),
              evidence: { source: 'user', messageIndex: latest },
            },
      ...(earlier.length === 0 ? {} : { earlierRequests: earlier }),
    };
    const sampled = [...this.userDigest.finish(), ...this.otherDigest.finish()].sort(
      (left, right) => left.seq - right.seq,
    );
    // The same layout a native digest gets: what fits `maxDigestChars`, users given half the lines.
    const layout = digestLayout(
      sampled.map((entry) => entry.role),
      this.caps,
    );
    const entries = layout.indexes.flatMap((index) => {
      const entry = sampled[index];
      return entry === undefined ? [] : [{ ...entry, text: truncateText(entry.text, layout.lineChars) }];
    });
    const checkpoint: ForgeStateCheckpoint = {
      schemaVersion: 1,
      strategy: 'forge-state',
      source: {
        summarizedThrough: count,
        sourceHash: this.hasher.digest(),
        tailStart: count,
        tailHash: hashMessages([]),
        messageCount: count,
      },
      state: hostState,
      memory: capMemory({ ...emptyCheckpointMemory(), constraints: this.constraints }, this.caps),
      digest: { summarizedMessages: count, entries },
      estimatedTokens: 0,
      safetyLabels: [...CHECKPOINT_SAFETY_LABELS],
    };
    return { ...checkpoint, estimatedTokens: countTextConservatively(renderCheckpointView(checkpoint, this.caps)) };
  }

  /** Keeps the first user message and the most recent ones the task section can show. */
  private keepRecentUsers(): void {
    // The latest request and the earlier ones a checkpoint keeps (the first among them).
    const keep = MAX_EARLIER_REQUESTS + 1;
    if (this.users.size <= keep) return;
    for (const index of this.users.keys()) {
      if (index !== this.first) {
        this.users.delete(index);
        return;
      }
    }
  }
}
