import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  buildPrivateBinary,
  spawnForge,
  startForge,
  type ForgeProcess,
  type PrivateBinary,
  type SpawnedForge,
} from '@forge/cli/bundle-testing';
import type { Message } from '@forge/core';
import type { SessionTranscript } from '@forge/persistence';
import { afterAll, beforeAll, expect, vi } from 'vitest';

// A forge ended together with its terminal may still be writing its session index for a moment.
const REMOVE_RETRYING = { recursive: true, force: true, maxRetries: 10, retryDelay: 100 } as const;

/** A private build of the CLI for one test file, and a fresh workspace and FORGE_HOME per use. */
export interface BundleFixture {
  readonly bundle: () => PrivateBinary;
  /** A new temporary directory, removed after the file's tests. */
  temporaryDirectory(prefix: string): Promise<string>;
}

/** Builds the bundle once before the file's tests and removes it and every temporary directory after them. */
export function useBundle(label: string): BundleFixture {
  // Every test starts real programs (forge, MCP servers, Codex, Chromium), several seconds each on a busy machine.
  vi.setConfig({ testTimeout: 120_000 });
  let bundle: PrivateBinary | undefined;
  const directories: string[] = [];
  beforeAll(() => {
    bundle = buildPrivateBinary(label);
  }, 120_000);
  afterAll(async () => {
    bundle?.remove();
    await Promise.all(directories.splice(0).map((directory) => rm(directory, REMOVE_RETRYING)));
  });
  return {
    bundle: () => {
      if (bundle === undefined) throw new Error('the bundle is built in beforeAll; call bundle() inside a test');
      return bundle;
    },
    async temporaryDirectory(prefix) {
      const directory = await mkdtemp(path.join(tmpdir(), `forge-bundle-${prefix}-`));
      directories.push(directory);
      return directory;
    },
  };
}

/** One user's machine: a workspace, a FORGE_HOME and a HOME, and the environment that names them. */
export interface UserSetup {
  readonly workspace: string;
  readonly forgeHome: string;
  readonly env: Record<string, string>;
  /** Runs `forge <args>` in the workspace with `extra` added to the environment. */
  forge(args: readonly string[], extra?: Record<string, string>): Promise<SpawnedForge>;
  /** Starts `forge <args>` without waiting for it. */
  start(args: readonly string[], extra?: Record<string, string>): ForgeProcess;
  /** Writes `FORGE_HOME/config.json` (schemaVersion 1 added). */
  writeConfig(config: Record<string, unknown>): Promise<void>;
  /** Writes the replies `scripted:file` plays and returns the environment that selects them. */
  writeModelScript(replies: readonly unknown[]): Promise<Record<string, string>>;
  /** `forge sessions show <id> --json`, checked to succeed. */
  session(id: string): Promise<SessionTranscript>;
}

export async function userSetup(fixture: BundleFixture, prefix: string): Promise<UserSetup> {
  const root = await fixture.temporaryDirectory(prefix);
  const workspace = path.join(root, 'workspace');
  const forgeHome = path.join(root, 'forge-home');
  const home = path.join(root, 'home');
  await Promise.all([mkdir(workspace), mkdir(forgeHome), mkdir(home)]);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, FORGE_HOME: forgeHome, LANG: 'C.UTF-8' };
  const forge = (args: readonly string[], extra: Record<string, string> = {}) =>
    spawnForge(fixture.bundle().bin, args, { cwd: workspace, env: { ...env, ...extra } });
  return {
    workspace,
    forgeHome,
    env,
    forge,
    start: (args, extra = {}) => startForge(fixture.bundle().bin, args, { cwd: workspace, env: { ...env, ...extra } }),
    writeConfig: (config) =>
      writeFile(path.join(forgeHome, 'config.json'), JSON.stringify({ schemaVersion: 1, ...config }, null, 2)),
    async writeModelScript(replies) {
      const file = path.join(root, `model-script-${Math.random().toString(36).slice(2)}.json`);
      await writeFile(file, JSON.stringify(replies));
      return { FORGE_TEST_MODEL_SCRIPT: file };
    },
    async session(id) {
      const shown = await forge(['sessions', 'show', id, '--json']);
      expect(shown.stderr).toBe('');
      expect(shown.code).toBe(0);
      return JSON.parse(shown.stdout) as SessionTranscript;
    },
  };
}

/** The session id `forge run` prints on stderr (`session: <id>`). */
export function sessionIdOf(stderr: string): string {
  const id = /^session: (\S+)$/m.exec(stderr)?.[1];
  if (id === undefined) throw new Error(`forge printed no session id; stderr:\n${stderr}`);
  return id;
}

/** The text of every tool result, in order (error results included). */
export function toolResultTexts(messages: readonly Message[]): string[] {
  return messages.flatMap((message) =>
    message.role === 'tool'
      ? message.content.map((part) =>
          'value' in part.output && typeof part.output.value === 'string'
            ? part.output.value
            : JSON.stringify(part.output),
        )
      : [],
  );
}
