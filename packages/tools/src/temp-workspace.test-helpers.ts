import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JsonValue, Tool, ToolExecutionResult } from '@forge/core';
import { afterEach } from 'vitest';

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

/** A fresh temporary directory (real path), removed after the current test. */
export async function makeTempDirectory(prefix = 'forge-tools-'): Promise<string> {
  const directory = await realpath(await mkdtemp(path.join(tmpdir(), prefix)));
  created.push(directory);
  return directory;
}

/** Writes `files` (relative path → content) under `root`, creating directories as needed. */
export async function writeFiles(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(root, relative);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

/** Runs a tool outside the agent loop, with a signal that is never aborted unless one is given. */
export function call(
  tool: Tool,
  input: JsonValue,
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolExecutionResult> {
  return tool.execute(input, { toolCallId: 'call_test', signal });
}

/** The text of a result, whatever its output type. */
export function outputText(result: ToolExecutionResult): string {
  return result.output.type === 'json' ? JSON.stringify(result.output.value) : result.output.value;
}
