import { MAX_TOOL_ERROR_TEXT_BYTES } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_OUTPUT_CAP_BYTES } from './tools/run-command.js';

describe('tool text caps', () => {
  it('caps error text of every tool as run_command caps its output by default', () => {
    expect(MAX_TOOL_ERROR_TEXT_BYTES).toBe(DEFAULT_OUTPUT_CAP_BYTES);
  });
});
