import { z } from 'zod';
import { configFileSchema } from './schema.js';

/** The JSON Schema of a configuration file, generated from the zod schema (for editors: `"$schema"`). */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(configFileSchema, { io: 'input' }),
    $id: 'https://forge.dev/schema/config.schema.json',
    title: 'Forge configuration',
  };
}

/** The schema as the text of `schema/config.schema.json`. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
