import type { AssistantMessage, JsonObject, Message, ToolMessage, ToolResultOutput } from '@forge/core';
import type { RedactionContext, Redactor } from '@forge/core/redaction';

function redactOutput(output: ToolResultOutput, redactor: Redactor, context: RedactionContext): ToolResultOutput {
  return output.type === 'json'
    ? { type: 'json', value: redactor.redactJson(output.value) }
    : { ...output, value: redactor.redact(output.value, context) };
}

/** The file a tool result shows, as the host recorded it (`read_file`'s `path`): a key file's content is redacted whole. */
function resultContext(metadata: JsonObject | undefined): RedactionContext {
  const file = metadata?.['path'];
  return typeof file === 'string' ? { file } : {};
}

/**
 * A copy of `message` with secrets removed from everything a person or model wrote: text,
 * reasoning text, tool inputs and outputs, result metadata. `providerMetadata` is left exactly as
 * the provider sent it: it may be an encrypted blob that must go back unchanged.
 */
export function redactMessage(message: Message, redactor: Redactor): Message {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: redactor.redact(message.content) };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content.map((part): AssistantMessage['content'][number] => {
          switch (part.type) {
            case 'text':
            case 'reasoning':
              return { ...part, text: redactor.redact(part.text) };
            case 'tool-call':
              return { ...part, input: redactor.redactJson(part.input) };
          }
        }),
      };
    case 'tool':
      return {
        role: 'tool',
        content: message.content.map((part): ToolMessage['content'][number] => ({
          ...part,
          output: redactOutput(part.output, redactor, resultContext(part.metadata)),
          ...(part.metadata === undefined ? {} : { metadata: redactor.redactJson(part.metadata) }),
        })),
      };
  }
}
