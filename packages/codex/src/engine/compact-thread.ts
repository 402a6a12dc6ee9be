import {
  serverNotifications,
  tokenUsageUpdatedSchema,
  turnNotificationSchema,
  itemNotificationSchema,
  parseThreadItem,
} from '../app-server/protocol.js';
import type { CodexAppServer } from '../app-server/client.js';
import { CodexProtocolError } from '../errors.js';
import type { CodexCompactionRecord, CodexTokenUsageRecord } from './events.js';

/** A compaction Codex made on request, with the token usage its compaction call reported. */
export type CodexCompactionResult = CodexCompactionRecord & { readonly tokenUsage: readonly CodexTokenUsageRecord[] };

/**
 * Asks Codex to compact a thread now (`thread/compact/start`) and waits until its compaction
 * turn completes. How Codex compacts (a local summary or the provider's opaque item) is Codex's
 * business; Forge records only that it happened.
 */
export async function compactCodexThread(server: CodexAppServer, threadId: string): Promise<CodexCompactionResult> {
  let compaction: CodexCompactionRecord | undefined;
  const tokenUsage: CodexTokenUsageRecord[] = [];
  let stop = (): void => {};
  let stopExitWatch = (): void => {};
  const done = new Promise<CodexCompactionResult>((resolve, reject) => {
    stopExitWatch = server.onExit(reject);
    stop = server.subscribe(({ method, params }) => {
      if (method === serverNotifications.tokenUsageUpdated) {
        const parsed = tokenUsageUpdatedSchema.safeParse(params);
        if (parsed.success && parsed.data.threadId === threadId)
          tokenUsage.push({ turnId: parsed.data.turnId, ...parsed.data.tokenUsage });
        return;
      }
      if (method === serverNotifications.itemCompleted) {
        const parsed = itemNotificationSchema.safeParse(params);
        if (!parsed.success || parsed.data.threadId !== threadId) return;
        const item = parseThreadItem(parsed.data.item);
        if (item.type === 'contextCompaction') compaction = { turnId: parsed.data.turnId, itemId: item.id };
        return;
      }
      if (method !== serverNotifications.turnCompleted) return;
      const parsed = turnNotificationSchema.safeParse(params);
      if (!parsed.success || parsed.data.threadId !== threadId) return;
      if (compaction !== undefined && parsed.data.turn.status === 'completed') resolve({ ...compaction, tokenUsage });
      else {
        reject(
          new CodexProtocolError({
            method: 'thread/compact/start',
            message: `Codex did not compact thread ${threadId}: its compaction turn ended ${parsed.data.turn.status}${parsed.data.turn.error === null ? '' : ` (${parsed.data.turn.error.message})`}.`,
          }),
        );
      }
    });
  });
  try {
    await server.startCompaction(threadId);
    return await done;
  } finally {
    stop();
    stopExitWatch();
  }
}
