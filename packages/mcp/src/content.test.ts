import { describe, expect, it } from 'vitest';
import { mcpResultText } from './content.js';

describe('mcpResultText', () => {
  it('joins text blocks and leaves a short result whole', () => {
    const result = mcpResultText(
      {
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      100,
      'srv__tool',
    );
    expect(result).toEqual({ text: 'one\ntwo', truncated: false, fullLength: 7 });
  });

  it('shows audio as a placeholder with its size, never its data', () => {
    const data = Buffer.alloc(300, 7).toString('base64');
    const { text } = mcpResultText({ content: [{ type: 'audio', data, mimeType: 'audio/wav' }] }, 1_000, 'srv__tool');
    expect(text).toBe('[audio audio/wav, 300 bytes: not shown to the model]');
  });

  it('cuts at the cap without splitting a surrogate pair, and says how much there was', () => {
    const full = `${'a'.repeat(9)}😀tail`;
    const result = mcpResultText({ content: [{ type: 'text', text: full }] }, 10, 'srv__emoji');
    expect(result.truncated).toBe(true);
    expect(result.fullLength).toBe(full.length);
    expect(result.text.split('\n')[0]).toBe('a'.repeat(9));
    expect(result.text).toContain(`srv__emoji returned ${full.length} characters; only the first 9 are shown`);
  });

  it('gives an empty text for an empty result', () => {
    expect(mcpResultText({ content: [] }, 10, 'srv__tool').text).toBe('');
  });
});
