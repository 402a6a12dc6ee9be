import { join } from 'node:path';
import { z } from 'zod';
import { readJsonCache, sameStamp, stampOf, writeJsonCache, type FileStamp } from './json-cache.js';
import { totalsSchema } from './session-index.js';

/** `sessions/.listing.json`: a dot name, so no listing takes it for a session. */
export const SESSION_LISTING_FILE_NAME = '.listing.json';
const LISTING_VERSION = 1;
const MAX_LISTING_BYTES = 256 * 1024 * 1024;

const count = z.number().int().min(0);

const listedSchema = z.object({
  /** The session's log (or v1 file) when the line was made. */
  size: count,
  mtimeMs: z.number(),
  schemaVersion: z.union([z.literal(1), z.literal(2)]),
  createdAt: z.string(),
  updatedAt: z.string(),
  workspaceRoot: z.string().nullable(),
  messageCount: count,
  firstUserLine: z.string().optional(),
  totals: totalsSchema.optional(),
});

/** What a listing needs of every session to order and filter them; the rest of a line is checked when it is shown. */
const headSchema = z.looseObject({
  size: count,
  mtimeMs: z.number(),
  updatedAt: z.string(),
  workspaceRoot: z.string().nullable(),
  messageCount: count,
});

const listingSchema = z.object({ v: z.literal(LISTING_VERSION), sessions: z.record(z.string(), headSchema) });

/** What the listing keeps of a session: its line of `forge sessions list`, with the stamp of the file it came from. */
export type ListedSession = z.infer<typeof listedSchema>;
type ListedHead = z.infer<typeof headSchema>;

/**
 * One file beside the sessions that holds every session's line of a listing, so that listing
 * thousands of sessions costs one read and one stat per session instead of opening each index.
 * A cache, never trusted over the sessions: a line counts only while its session's log has the
 * size and modification time the line was made from (the log, not its index, is the truth);
 * anything else is summarized again and the file rewritten, by a rename without a flush. Sessions
 * that are gone are dropped; losing the file, or failing to write it, only costs time.
 */
export class SessionListing {
  private readonly stored: Readonly<Record<string, ListedHead>>;
  private readonly kept = new Map<string, ListedHead>();
  private changed = false;

  private constructor(private readonly file: string) {
    this.stored = readJsonCache(file, listingSchema, MAX_LISTING_BYTES)?.sessions ?? {};
  }

  static read(sessionsDirectory: string): SessionListing {
    return new SessionListing(join(sessionsDirectory, SESSION_LISTING_FILE_NAME));
  }

  /**
   * What orders and filters session `id` in a listing, when `file` (its log or v1 file) is as it
   * was when its line was made; `line` gives the rest once it is to be shown.
   */
  fresh(id: string, file: string): ListedHead | undefined {
    const listed = Object.hasOwn(this.stored, id) ? this.stored[id] : undefined;
    if (listed === undefined) return undefined;
    if (!sameStamp(stampOf(file), listed)) return undefined;
    this.kept.set(id, listed);
    return listed;
  }

  /** The whole line of a session `fresh` answered for, or undefined when it does not pass its checks. */
  line(id: string): ListedSession | undefined {
    const parsed = listedSchema.safeParse(this.kept.get(id));
    if (parsed.success) return parsed.data;
    this.kept.delete(id);
    this.changed = true;
    return undefined;
  }

  /** Keeps the line of a session just summarized from `stamp`, its file as the summary read it. */
  remember(id: string, stamp: FileStamp, line: Omit<ListedSession, 'size' | 'mtimeMs'>): void {
    this.kept.set(id, { ...line, size: stamp.size, mtimeMs: stamp.mtimeMs });
    this.changed = true;
  }

  /** Rewrites the file when a line was made afresh or a session has gone. */
  async save(): Promise<void> {
    if (!this.changed && this.kept.size === Object.keys(this.stored).length) return;
    const listing = { v: LISTING_VERSION, sessions: Object.fromEntries(this.kept) };
    await writeJsonCache(this.file, listing);
  }
}
