import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/** Characters of one MCP tool result shown to the model unless configured otherwise. */
export const DEFAULT_MCP_OUTPUT_CAP_CHARS = 64 * 1024;

/** The text of one MCP tool result, as the model will see it. */
export interface McpResultText {
  readonly text: string;
  readonly truncated: boolean;
  /** Length of the whole text before the cap. */
  readonly fullLength: number;
}

/** Approximate decoded size of base64 data, for placeholder lines. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes: not shown to the model]`;
    case 'resource': {
      const { resource } = block;
      const kind = resource.mimeType === undefined ? '' : ` (${resource.mimeType})`;
      if ('text' in resource) return `[resource ${resource.uri}${kind}]\n${resource.text}`;
      return `[resource ${resource.uri}${kind}, ${base64Bytes(resource.blob)} bytes of binary data: not shown to the model]`;
    }
    case 'resource_link':
      return `[resource link ${block.uri}${block.name === '' ? '' : ` (${block.name})`}]`;
    default:
      return `[content of an unsupported type "${String((block as { type?: unknown }).type)}": not shown to the model]`;
  }
}

/**
 * Turns the content of an MCP tool result into one text: text blocks as they are, embedded text
 * resources after a header line, images, audio and binary data as a placeholder line. When the
 * server sent structured content only, its JSON is the text. The text is cut at `capChars` and
 * ends with a line saying how much was left out.
 */
export function mcpResultText(result: CallToolResult, capChars: number, toolName: string): McpResultText {
  const parts = result.content.map(describeBlock);
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  const full = parts.join('\n');
  if (full.length <= capChars) return { text: full, truncated: false, fullLength: full.length };
  let end = capChars;
  const last = full.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return {
    text: `${full.slice(0, end)}\n[truncated: ${toolName} returned ${full.length} characters; only the first ${end} are shown. Ask the tool for less, e.g. a narrower query or a page of results.]`,
    truncated: true,
    fullLength: full.length,
  };
}
