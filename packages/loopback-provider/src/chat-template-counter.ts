import { Template } from '@huggingface/jinja';

/*
 * A test and benchmark facility: counts a Chat Completions request the way a self-hosted server
 * does — render the request's messages and tools with a chat template (Jinja, as Hugging Face
 * publishes them), then tokenize the text. Given to `startLoopbackProvider({ countPromptTokens })`
 * it makes the loopback server report the input a real server would.
 */

export interface ChatTemplateCounterOptions {
  /** A Hugging Face chat template (`chat_template` of a tokenizer_config.json). */
  readonly template: string;
  /** Tokens of the rendered prompt; special-token text must count as the special token. */
  readonly countText: (text: string) => number;
  /** Extra template variables, e.g. `bos_token`. */
  readonly variables?: Readonly<Record<string, unknown>>;
  /** For templates that do not render tool definitions: their tokens, added to the rendered prompt's. */
  readonly countTools?: (tools: readonly Record<string, unknown>[]) => number;
}

type WireMessage = Record<string, unknown>;

/** `content` as a string: Chat Completions also allows an array of text parts, or null beside tool calls. */
function textOf(content: unknown): unknown {
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) return content;
  return content
    .map((part) =>
      typeof part === 'object' && part !== null ? String((part as { text?: unknown }).text ?? '') : String(part),
    )
    .join('');
}

/** A prompt-token counter for Chat Completions request bodies; see {@link ChatTemplateCounterOptions}. */
export function chatTemplateCounter(options: ChatTemplateCounterOptions): (body: Record<string, unknown>) => number {
  const template = new Template(options.template);
  return (body) => {
    const messages = (Array.isArray(body['messages']) ? (body['messages'] as WireMessage[]) : []).map((message) => ({
      ...message,
      content: textOf(message['content']),
    }));
    const tools =
      Array.isArray(body['tools']) && body['tools'].length > 0
        ? (body['tools'] as Record<string, unknown>[])
        : undefined;
    const text = template.render({
      ...options.variables,
      messages,
      ...(tools === undefined ? {} : { tools }),
      add_generation_prompt: true,
    });
    return (
      options.countText(text) +
      (tools === undefined || options.countTools === undefined ? 0 : options.countTools(tools))
    );
  };
}
