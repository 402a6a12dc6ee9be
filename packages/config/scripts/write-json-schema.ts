/*
 * Regenerates schema/config.schema.json from the zod schema. Run after changing the schema:
 *   npx tsx --conditions=@forge/source packages/config/scripts/write-json-schema.ts
 * A test fails while the committed file is out of date.
 */
import { writeFile } from 'node:fs/promises';
import { configJsonSchemaText } from '../src/json-schema.js';

const target = new URL('../schema/config.schema.json', import.meta.url);
await writeFile(target, configJsonSchemaText());
process.stdout.write(`wrote ${target.pathname}\n`);
