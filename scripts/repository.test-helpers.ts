import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root (scripts/ sits directly below it). */
export const REPOSITORY_ROOT = join(import.meta.dirname, '..');

/** The directory of every workspace package: packages/*, apps/*, tests/* and evals. */
export function packageDirectories(): string[] {
  const grouped = ['packages', 'apps', 'tests'].flatMap((group) =>
    readdirSync(join(REPOSITORY_ROOT, group)).map((entry) => join(REPOSITORY_ROOT, group, entry)),
  );
  return [...grouped, join(REPOSITORY_ROOT, 'evals')].filter((dir) => existsSync(join(dir, 'package.json')));
}

/** The TypeScript and JavaScript files below `dir`, leaving out node_modules, dist and dot-directories. */
export function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (/\.(ts|mts|js|mjs)$/.test(entry)) files.push(path);
  }
  return files;
}
