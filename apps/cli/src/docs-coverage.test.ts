import { readFileSync } from 'node:fs';
import { configFileSchema } from '@forge/config';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commandTable } from './program.js';
import { slashCommands } from './repl/slash-commands.js';

/*
 * docs/cli.md must cover every command and slash command, and docs/configuration.md every key of
 * the configuration schema: adding one without documenting it fails here.
 */

const read = (name: string) => readFileSync(new URL(`../../../docs/${name}`, import.meta.url), 'utf8');

/** Dotted paths of every key of an object schema, descending into objects and arrays of objects. */
function keyPaths(schema: z.ZodType, prefix = ''): string[] {
  const inner =
    schema instanceof z.ZodOptional || schema instanceof z.ZodNullable ? (schema.unwrap() as z.ZodType) : schema;
  if (inner instanceof z.ZodArray) return keyPaths(inner.element as z.ZodType, prefix);
  if (!(inner instanceof z.ZodObject)) return [];
  return Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(([key, value]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    return [path, ...keyPaths(value, path)];
  });
}

describe('the documentation', () => {
  it('docs/cli.md names every command and every global option', () => {
    const text = read('cli.md');
    for (const entry of commandTable.commands) {
      const path = entry.usage.split(/\s+/).filter((word) => !word.startsWith('<') && !word.startsWith('['));
      expect(text, `forge ${path.join(' ')}`).toContain(`forge ${path.join(' ')}`);
      for (const spec of Object.values(entry.options ?? {})) {
        const option = spec.option();
        expect(text, `${entry.usage} ${option.long ?? ''}`).toContain(option.long ?? '');
      }
    }
    for (const flag of [
      '--model',
      '--cwd',
      '--approval',
      '--context-mode',
      '--max-steps',
      '--forge-home',
      '--resume',
      '--last',
      '--engine',
    ]) {
      expect(text).toContain(`\`${flag}`);
    }
  });

  it('docs/cli.md names every slash command', () => {
    const text = read('cli.md');
    for (const command of slashCommands) expect(text, `/${command.name}`).toContain(`| \`/${command.name}`);
  });

  it('docs/configuration.md names every configuration key', () => {
    const text = read('configuration.md');
    const paths = keyPaths(configFileSchema);
    expect(paths).toContain('mcpServers.command');
    for (const path of paths) {
      const leaf = path.split('.').at(-1) ?? path;
      expect(text.includes(`\`${leaf}\``) || text.includes(`\`${path}`), path).toBe(true);
    }
  });
});
