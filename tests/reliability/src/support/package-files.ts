import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** A file shipped inside a workspace package (a frozen fixture, a golden file), by package name and relative path. */
export function packageFile(packageName: string, ...path: string[]): string {
  return join(dirname(require.resolve(`${packageName}/package.json`)), ...path);
}
