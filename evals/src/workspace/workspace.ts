import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExpandedFixture, WrittenFile } from '../fixture/expand.js';
import type { CommandResult, FixtureCommand } from '../fixture/schema.js';

/** Name of the instructions file Forge loads from the workspace root. */
export const INSTRUCTIONS_FILE = 'AGENTS.md';

/** A temporary workspace and FORGE_HOME for one fixture × mode run. */
export interface EvalWorkspace {
  readonly root: string;
  readonly forgeHome: string;
  /** Removes both directories. */
  dispose(): Promise<void>;
}

async function writeFiles(root: string, files: readonly WrittenFile[]): Promise<void> {
  for (const file of files) {
    const target = path.join(root, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content);
  }
}

/** Creates the workspace of a fixture (its files, the generated filler, AGENTS.md) in a temporary directory. */
export async function createEvalWorkspace(fixture: ExpandedFixture): Promise<EvalWorkspace> {
  const base = await mkdtemp(path.join(tmpdir(), `forge-eval-${fixture.fixture.id}-`));
  const root = path.join(base, 'workspace');
  const forgeHome = path.join(base, 'forge-home');
  await mkdir(root, { recursive: true });
  await mkdir(forgeHome, { recursive: true });
  await writeFiles(root, fixture.files);
  if (fixture.fixture.instructions !== undefined)
    await writeFile(path.join(root, INSTRUCTIONS_FILE), fixture.fixture.instructions);
  return { root, forgeHome, dispose: () => rm(base, { recursive: true, force: true }) };
}

/** Applies a turn's `before` changes made outside the agent. */
export async function applyOutsideChanges(
  root: string,
  files: readonly WrittenFile[],
  instructions: string | undefined,
): Promise<void> {
  await writeFiles(root, files);
  if (instructions !== undefined) await writeFile(path.join(root, INSTRUCTIONS_FILE), instructions);
}

/** A workspace file's text, or undefined when it does not exist. */
export async function readWorkspaceFile(root: string, relative: string): Promise<string | undefined> {
  try {
    return await readFile(path.join(root, relative), 'utf8');
  } catch {
    return undefined;
  }
}

/** The value of `fact:<key>=<value>` in a text, the last one when there are several. */
export function factValueIn(text: string, key: string): string | undefined {
  let value: string | undefined;
  const pattern = new RegExp(`fact:${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}=([A-Za-z0-9_.-]+)`, 'g');
  for (const match of text.matchAll(pattern)) value = match[1];
  return value;
}

/** The result a fixture command gives for the workspace as it is now: the first entry whose condition holds. */
export async function evaluateCommand(root: string, command: FixtureCommand): Promise<CommandResult> {
  for (const result of command.results) {
    if (result.when === undefined) return result;
    const text = await readWorkspaceFile(root, result.when.path);
    if (text === undefined) continue;
    if (result.when.contains !== undefined && !text.includes(result.when.contains)) continue;
    if (result.when.notContains !== undefined && text.includes(result.when.notContains)) continue;
    return result;
  }
  return { exitCode: 1, output: `${command.argv.join(' ')}: no result matches the workspace` };
}
