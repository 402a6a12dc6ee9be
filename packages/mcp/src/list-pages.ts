import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';

/** Pages of a list read at most; a server that keeps paging is broken. */
const MAX_PAGES = 100;

type PagedList<K extends string, T> = { readonly nextCursor?: string | undefined } & { readonly [key in K]: T[] };

/**
 * Reads every page of a `tools/list`, `resources/list` or `prompts/list`. `list` is called with
 * the cursor params (and `options` when given) for each page.
 */
export async function listAll<K extends string, T>(
  list: (params: { cursor?: string }, options?: RequestOptions) => Promise<PagedList<K, T>>,
  key: K,
  options?: RequestOptions,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const listed = await list(cursor === undefined ? {} : { cursor }, options);
    items.push(...listed[key]);
    cursor = listed.nextCursor;
    if (cursor === undefined) break;
  }
  return items;
}
