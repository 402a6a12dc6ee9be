import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { McpServerConfig } from './config.js';

/** Path of the MCP server the tests start (plain JavaScript, run by node from the checkout). */
export const TEST_SERVER_PATH = join(import.meta.dirname, 'test-server', 'test-server.mjs');

/** Config of a test server started with `flags`. */
export function testServerConfig(
  name: string,
  flags: readonly string[] = [],
  extra: Partial<McpServerConfig> = {},
): McpServerConfig {
  return { name, command: process.execPath, args: [TEST_SERVER_PATH, ...flags], ...extra };
}

/** True while a process with this id exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Ids of the live child processes of this process (Linux `/proc`); zombies count as ended. */
export function childProcessIds(): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(parent) === process.pid && state !== 'Z') children.push(Number(entry));
  }
  return children;
}
