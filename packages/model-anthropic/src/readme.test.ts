import { it } from 'vitest';
import { runReadmeExample } from '@forge/loopback-provider/readme-example';

it('runs the example in the README', async () => {
  await runReadmeExample(
    new URL('../README.md', import.meta.url),
    new URL('./readme-example.test-helpers.ts', import.meta.url),
  );
});
