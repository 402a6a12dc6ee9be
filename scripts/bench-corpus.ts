import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/*
 * The mixed corpus the budget and tokenizer benchmarks count: the repository's TypeScript and
 * Markdown, then the Markdown of installed dependencies, in a fixed order, until ~1 MB.
 */

const root = join(import.meta.dirname, '..');
const TARGET_BYTES = 1_000_000;

/** Source and documentation files of the repository and its installed dependencies, in a fixed order, until ~1 MB. */
export function mixedCorpus(): string[] {
  const documents: string[] = [];
  let bytes = 0;
  const visit = (dir: string, extensions: readonly string[], budget: number): void => {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const entry of entries) {
      if (bytes >= budget) return;
      if (entry === 'dist' || entry === '.turbo' || entry === 'node_modules' || entry.startsWith('.')) continue;
      const path = join(dir, entry);
      const stat = statSync(path);
      if (stat.isDirectory()) visit(path, extensions, budget);
      else if (extensions.some((extension) => entry.endsWith(extension)) && stat.size < 200_000) {
        const text = readFileSync(path, 'utf8');
        documents.push(text);
        bytes += Buffer.byteLength(text);
      }
    }
  };
  visit(join(root, 'packages'), ['.ts'], TARGET_BYTES * 0.45);
  visit(join(root, 'apps'), ['.ts'], TARGET_BYTES * 0.55);
  visit(join(root, 'docs'), ['.md'], TARGET_BYTES * 0.65);
  const pnpmStore = join(root, 'node_modules/.pnpm');
  for (const entry of readdirSync(pnpmStore).sort()) {
    if (bytes >= TARGET_BYTES) break;
    visit(join(pnpmStore, entry, 'node_modules'), ['.md'], TARGET_BYTES);
  }
  return documents;
}
