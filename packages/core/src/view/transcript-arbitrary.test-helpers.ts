import fc from 'fast-check';
import type { AssistantMessage, Message, ToolMessage } from '../messages.js';

/**
 * Random transcripts shaped like real sessions: user turns, assistant messages with reasoning,
 * text and tool calls, their results (one tool message or one per result), reasoning-only
 * assistant messages, and possibly a last assistant message whose calls are still pending.
 */
export function transcriptArbitrary(options: { maxTurns?: number } = {}): fc.Arbitrary<Message[]> {
  const text = fc.string({ maxLength: 60 });
  const step = fc.record({
    reasoningOnlyBefore: fc.boolean(),
    reasoning: fc.option(text, { nil: undefined }),
    answer: fc.option(text, { nil: undefined }),
    calls: fc.integer({ min: 0, max: 3 }),
    splitResults: fc.boolean(),
    resultText: text,
  });
  const turn = fc.record({ user: fc.option(text, { nil: undefined }), steps: fc.array(step, { maxLength: 3 }) });
  return fc
    .record({ turns: fc.array(turn, { maxLength: options.maxTurns ?? 12 }), pendingAtEnd: fc.boolean() })
    .map(({ turns, pendingAtEnd }) => {
      const messages: Message[] = [];
      let callNumber = 0;
      turns.forEach((currentTurn, turnIndex) => {
        if (currentTurn.user !== undefined) messages.push({ role: 'user', content: currentTurn.user });
        currentTurn.steps.forEach((currentStep, stepIndex) => {
          if (currentStep.reasoningOnlyBefore)
            messages.push({ role: 'assistant', content: [{ type: 'reasoning', text: 'thinking' }] });
          const content: AssistantMessage['content'] = [];
          if (currentStep.reasoning !== undefined)
            content.push({
              type: 'reasoning',
              text: currentStep.reasoning,
              providerMetadata: { id: `r${callNumber}` },
            });
          if (currentStep.answer !== undefined) content.push({ type: 'text', text: currentStep.answer });
          const ids: string[] = [];
          for (let call = 0; call < currentStep.calls; call += 1) {
            const toolCallId = `call_${callNumber++}`;
            ids.push(toolCallId);
            content.push({ type: 'tool-call', toolCallId, toolName: 'read', input: { path: `f${call}.ts` } });
          }
          messages.push({ role: 'assistant', content });
          const isLast = turnIndex === turns.length - 1 && stepIndex === currentTurn.steps.length - 1;
          if (ids.length === 0 || (isLast && pendingAtEnd)) return;
          const results: ToolMessage['content'] = ids.map((toolCallId) => ({
            type: 'tool-result',
            toolCallId,
            toolName: 'read',
            output: { type: 'text', value: currentStep.resultText },
          }));
          if (currentStep.splitResults)
            for (const result of results) messages.push({ role: 'tool', content: [result] });
          else messages.push({ role: 'tool', content: results });
        });
      });
      return messages;
    });
}

/** A simple stable cost: one token per four characters of JSON, at least one per message. */
export function countJsonTokens(message: Message): number {
  return Math.max(1, Math.ceil(JSON.stringify(message).length / 4));
}
