/**
 * JSON as Python's `json.dumps` writes it by default and as chat templates' `tojson` renders it:
 * `", "` between items, `": "` after keys, non-ASCII kept. Servers that render Hugging Face
 * templates (vLLM, llama.cpp, TGI) write tool definitions this way.
 */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .filter(([, entry]) => entry !== undefined)
      .map(([key, entry]) => `${JSON.stringify(key)}: ${pythonJson(entry)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
