import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProtocol } from './generate-protocol.js';
import {
  clientMethods,
  protocolDefinitions,
  sentParameterFields,
  serverNotifications,
  serverRequests,
  threadItemDefinitions,
} from './protocol.js';

/*
 * Regenerates the App Server protocol from the installed Codex binary and checks that every
 * method Forge calls or handles, and every field its schemas read or its requests send, exists
 * there. A Codex upgrade that renames one fails here instead of at run time.
 */

interface JsonSchema {
  readonly properties?: Record<string, unknown>;
  readonly required?: readonly string[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly definitions?: Record<string, JsonSchema>;
}

let root: string;
let definitions: Record<string, JsonSchema>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'forge-codex-protocol-'));
  const generated = await generateProtocol({ outDirectory: join(root, 'out'), codexHome: join(root, 'home') });
  const bundle = JSON.parse(
    await readFile(join(generated.jsonSchemaDirectory, 'codex_app_server_protocol.schemas.json'), 'utf8'),
  ) as JsonSchema;
  const nested = (bundle.definitions?.['v2'] ?? {}) as Record<string, JsonSchema>;
  definitions = { ...nested, ...bundle.definitions };
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function definition(name: string): JsonSchema {
  const found = definitions[name];
  if (found === undefined) throw new Error(`The generated protocol has no definition ${name}.`);
  return found;
}

function methodsOf(union: string): string[] {
  return (definition(union).oneOf ?? []).flatMap((variant) => {
    const method = variant.properties?.['method'] as { enum?: string[] } | undefined;
    return method?.enum ?? [];
  });
}

function propertiesOf(schema: JsonSchema): { properties: Set<string>; required: Set<string> } {
  const properties = new Set(Object.keys(schema.properties ?? {}));
  const required = new Set(schema.required ?? []);
  for (const part of schema.allOf ?? []) {
    const inner = propertiesOf(part);
    for (const name of inner.properties) properties.add(name);
    for (const name of inner.required) required.add(name);
  }
  return { properties, required };
}

describe('the protocol slice Forge uses matches the installed Codex', () => {
  it('has every method Forge calls, listens to and answers', () => {
    expect(methodsOf('ClientRequest')).toEqual(expect.arrayContaining(Object.values(clientMethods)));
    expect(methodsOf('ServerNotification')).toEqual(expect.arrayContaining(Object.values(serverNotifications)));
    expect(methodsOf('ServerRequest')).toEqual(expect.arrayContaining(Object.values(serverRequests)));
    expect(methodsOf('ClientNotification')).toContain('initialized');
  });

  it.each(Object.entries(protocolDefinitions))(
    '%s has the fields Forge reads, required where Forge requires them',
    (name, schema) => {
      const generated = propertiesOf(definition(name));
      for (const [field, fieldSchema] of Object.entries(schema.shape)) {
        expect(generated.properties, `${name}.${field}`).toContain(field);
        if (!(fieldSchema as { safeParse(value: unknown): { success: boolean } }).safeParse(undefined).success) {
          expect(generated.required, `${name}.${field} must be required`).toContain(field);
        }
      }
    },
  );

  it.each(Object.entries(threadItemDefinitions))(
    'the %s thread item has the fields Forge reads',
    (itemType, schema) => {
      const variant = (definition('ThreadItem').oneOf ?? []).find(
        (candidate) =>
          (candidate.properties?.['type'] as { enum?: string[] } | undefined)?.enum?.includes(itemType) === true,
      );
      expect(variant, `ThreadItem variant ${itemType}`).toBeDefined();
      const generated = propertiesOf(variant ?? {});
      for (const field of Object.keys(schema.shape))
        expect(generated.properties, `${itemType}.${field}`).toContain(field);
    },
  );

  it.each(Object.entries(sentParameterFields))('%s accepts the fields Forge sends', (name, fields) => {
    const generated = propertiesOf(definition(name));
    for (const field of fields) expect(generated.properties, `${name}.${field}`).toContain(field);
  });
});
