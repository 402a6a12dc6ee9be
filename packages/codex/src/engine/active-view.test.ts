import { createInstructionSnapshot, type Message } from '@forge/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderActiveView, requestFromActiveView } from './active-view.js';
import { estimateWrapperTokens } from './wrapper-estimate.js';

const instructions = createInstructionSnapshot('Follow the project rules.');

describe('the active-view wrapper', () => {
  it('always gives back the exact request, even when history or request quote another wrapper', () => {
    const quoted = renderActiveView({ instructions, history: [] }, 'inner request').text;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constant(quoted))),
        fc.oneof(fc.string(), fc.constant(quoted)),
        (texts, request) => {
          const history: Message[] = texts.map((text, index) =>
            index % 2 === 0
              ? { role: 'user', content: text }
              : { role: 'assistant', content: [{ type: 'text', text }] },
          );
          const rendered = renderActiveView({ instructions, history }, request);
          expect(requestFromActiveView(rendered.text)).toBe(request);
          expect(renderActiveView({ instructions, history }, request).text).toBe(rendered.text);
        },
      ),
    );
    expect(requestFromActiveView('plain user text')).toBeUndefined();
  });

  it('shows tool calls and results of the selected history and nothing else', () => {
    const rendered = renderActiveView(
      {
        instructions,
        checkpoint: '[SESSION_CHECKPOINT v1]\n[TASK]\n- ship it',
        history: [
          {
            role: 'assistant',
            content: [
              { type: 'tool-call', toolCallId: 'c1', toolName: 'run_command', input: { argv: ['npm', 'test'] } },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'c1',
                toolName: 'run_command',
                output: { type: 'error-text', value: 'exit 1' },
              },
            ],
          },
        ],
      },
      'Fix it',
    );
    expect(rendered.text).toContain('assistant called run_command (c1) with {"argv":["npm","test"]}');
    expect(rendered.text).toContain('tool result run_command (c1):\nerror: exit 1');
    expect(rendered.text).toContain('[CHECKPOINT]\n[SESSION_CHECKPOINT v1]');
    expect(rendered.text.indexOf('[INSTRUCTIONS]')).toBeLessThan(rendered.text.indexOf('[CHECKPOINT]'));
    expect(rendered.text.indexOf('[HISTORY]')).toBeLessThan(rendered.text.indexOf('[CURRENT REQUEST]'));
  });

  it('estimates on the high side of four bytes per token, split by category', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (historyText, request) => {
        const rendered = renderActiveView({ instructions, history: [{ role: 'user', content: historyText }] }, request);
        const estimate = estimateWrapperTokens(rendered);
        const {
          instructions: forInstructions,
          checkpoint,
          history,
          request: forRequest,
          overhead,
        } = estimate.categories;
        expect(forInstructions + checkpoint + history + forRequest + overhead).toBe(estimate.tokens);
        expect(estimate.tokens).toBeGreaterThanOrEqual(Math.ceil(estimate.bytes / 4));
        expect(estimate.bytes).toBe(Buffer.byteLength(rendered.text));
      }),
    );
  });
});
