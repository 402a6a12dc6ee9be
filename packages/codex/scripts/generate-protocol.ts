/*
 * Writes the Codex App Server protocol (TypeScript bindings and JSON Schemas) printed by the
 * installed binary to packages/codex/generated/ (git-ignored), for reading while developing:
 *   npx tsx --conditions=@forge/source packages/codex/scripts/generate-protocol.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateProtocol } from '../src/app-server/generate-protocol.js';

const outDirectory = join(import.meta.dirname, '..', 'generated');
const codexHome = await mkdtemp(join(tmpdir(), 'forge-codex-home-'));
try {
  await rm(outDirectory, { recursive: true, force: true });
  const generated = await generateProtocol({ outDirectory, codexHome });
  console.log(`TypeScript bindings: ${generated.typescriptDirectory}\nJSON Schemas: ${generated.jsonSchemaDirectory}`);
} finally {
  await rm(codexHome, { recursive: true, force: true });
}
