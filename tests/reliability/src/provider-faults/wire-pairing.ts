/*
 * Tool call ↔ result pairing as the provider sees it, read from a recorded request body: the
 * Responses API's `function_call` / `function_call_output` items, or Chat Completions' assistant
 * `tool_calls` and `tool` messages.
 */

type Item = { readonly [key: string]: unknown };

function asItems(value: unknown): Item[] {
  return Array.isArray(value) ? value.filter((item): item is Item => typeof item === 'object' && item !== null) : [];
}

/** Call ids sent without their result, and result ids sent without their call. */
export function unpairedOnTheWire(body: unknown): { readonly calls: string[]; readonly results: string[] } {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Item;
  const calls: string[] = [];
  const results: string[] = [];
  for (const item of asItems(record['input'])) {
    if (item['type'] === 'function_call') calls.push(String(item['call_id']));
    if (item['type'] === 'function_call_output') results.push(String(item['call_id']));
  }
  for (const message of asItems(record['messages'])) {
    if (message['role'] === 'assistant')
      for (const call of asItems(message['tool_calls'])) calls.push(String(call['id']));
    if (message['role'] === 'tool') results.push(String(message['tool_call_id']));
  }
  return { calls: calls.filter((id) => !results.includes(id)), results: results.filter((id) => !calls.includes(id)) };
}

/** How many times `text` occurs in `raw`, counting its JSON-escaped form too. */
export function occurrences(raw: string, text: string): number {
  const escaped = JSON.stringify(text).slice(1, -1);
  return raw.split(escaped).length - 1;
}
