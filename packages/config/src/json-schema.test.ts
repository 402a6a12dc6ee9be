import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { configJsonSchema, configJsonSchemaText } from './json-schema.js';
import { lineAndColumn } from './parse-json.js';
import { parseConfigText } from './validate.js';

describe('config.schema.json', () => {
  it('is up to date with the zod schema (regenerate with scripts/write-json-schema.ts)', async () => {
    const committed = await readFile(new URL('../schema/config.schema.json', import.meta.url), 'utf8');
    expect(committed).toBe(configJsonSchemaText());
  });

  it('refuses unknown keys at every level, as the loader does', () => {
    const schema = configJsonSchema() as {
      additionalProperties?: boolean;
      properties: { context: { additionalProperties?: boolean } };
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.context.additionalProperties).toBe(false);
  });
});

describe('parseConfigText', () => {
  it('accepts the example from the documentation', () => {
    const text = JSON.stringify({
      $schema: 'https://forge.dev/schema/config.schema.json',
      schemaVersion: 1,
      model: 'openai:gpt-5.1',
      approval: { profile: 'ask' },
      secrets: { env: ['GITHUB_TOKEN'] },
      models: [
        {
          name: 'ollama',
          baseURL: 'http://127.0.0.1:11434/v1',
          modelId: 'qwen2.5-coder:7b',
          contextWindowTokens: 32_768,
        },
      ],
      context: {
        mode: 'warn',
        reservedOutputTokens: 4096,
        bufferTokens: 8192,
        recentTailTokens: 12_000,
        summaryTargetTokens: 1200,
        warnAtRatio: 0.8,
      },
    });
    expect(parseConfigText(text, 'example').context?.mode).toBe('warn');
  });

  it('throws only ConfigError, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((value) => JSON.stringify({ schemaVersion: 1, context: value })),
        ),
        (text) => {
          try {
            parseConfigText(text, 'fuzz');
          } catch (error) {
            expect(ConfigError.isInstance(error)).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('locates offsets by line and column', () => {
    expect(lineAndColumn('ab\ncd\n', 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn('ab\ncd\n', 4)).toEqual({ line: 2, column: 2 });
  });
});
