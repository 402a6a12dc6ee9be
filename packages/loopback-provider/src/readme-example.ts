import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/**
 * Checks that the first ```ts block of `readme` is the file `example` byte for byte (so the
 * README cannot drift from code that typechecks), then runs the example, which asserts its own
 * results. Both are `new URL('…', import.meta.url)` of the calling test.
 */
export async function runReadmeExample(readme: URL, example: URL): Promise<void> {
  const text = await readFile(readme, 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(text)?.[1];
  expect(block, `${fileURLToPath(readme)} has no \`\`\`ts block`).toBeDefined();
  expect(block, `the \`\`\`ts block of ${fileURLToPath(readme)} differs from ${fileURLToPath(example)}`).toBe(
    await readFile(example, 'utf8'),
  );
  await import(fileURLToPath(example));
}
