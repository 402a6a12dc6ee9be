import { sha256Hex, type ContextPolicy, type EventEnvelope, type ForgeEvent } from '@forge/core';
import type { WorkingSetFileContent, WorkingSetShownFile } from '@forge/core/checkpoint';
import { ScriptedModel, type ScriptedStep } from '@forge/core/testing';
import { useTemporaryHome } from '@forge/persistence/test-helpers/temporary-home';
import { describe, expect, it } from 'vitest';
import type { ArtifactHashSource } from './checkpoint-install.js';
import { allowAll, filler, instructionsFrom, MemoryWorkspace } from './compaction-fixtures.test-helpers.js';
import { openSessionHandle, type SessionHandle } from './session-turn.js';

/*
 * The working set end to end: a session reads a file, outgrows its window, and the checkpoint
 * that replaces the old turns carries the file's current text; a change on disk between turns
 * changes the checkpoint the next request sends, and the priced gate is asked about it.
 */

const temporaryHome = useTemporaryHome();
const compact: Partial<ContextPolicy> = {
  mode: 'compact',
  bufferTokens: 1_000,
  reservedOutputTokens: 1_000,
  recentTailTokens: 2_000,
};

/** The in-memory workspace as a host that can also read the files in hand, recording what each sent view showed. */
function readingSource(workspace: MemoryWorkspace, sent: WorkingSetShownFile[][]): ArtifactHashSource {
  const hashes = (uris: readonly string[]) => workspace.artifactHashes(uris);
  return Object.assign(hashes, {
    readFiles: async (paths: readonly string[]) =>
      new Map<string, WorkingSetFileContent>(
        paths.map((path) => {
          const text = workspace.files.get(path);
          return [path, text === undefined ? { kind: 'missing' } : { kind: 'text', text, sha256: sha256Hex(text) }];
        }),
      ),
    workingSetSent: (shown: readonly WorkingSetShownFile[]) => sent.push([...shown]),
  });
}

class Session {
  readonly events: EventEnvelope[] = [];
  readonly models: ScriptedModel[] = [];
  readonly sent: WorkingSetShownFile[][] = [];
  readonly workspace = new MemoryWorkspace({ 'src/config.ts': 'export const RETRIES = 3;\n' });
  private constructor(
    readonly home: string,
    public handle: SessionHandle,
  ) {}

  static async start(): Promise<Session> {
    const home = await temporaryHome();
    return new Session(home, await openSessionHandle({ home, workspaceRoot: '/work/project' }));
  }

  async turn(request: string, steps: readonly ScriptedStep[]): Promise<void> {
    const model = new ScriptedModel(steps, { capabilities: { contextWindowTokens: 8_000, maxOutputTokens: 1_000 } });
    this.models.push(model);
    await this.handle.runTurn({
      model,
      request,
      instructions: async () => instructionsFrom('Use pnpm.'),
      tools: this.workspace.tools(),
      approvals: allowAll,
      context: compact,
      artifactHashes: readingSource(this.workspace, this.sent),
      onEvent: (envelope) => this.events.push(envelope),
    });
  }

  async chatter(count: number, from = 0): Promise<void> {
    for (let index = from; index < from + count; index += 1)
      await this.turn(`Question ${index}: ${filler(index)}`, [{ text: `Answer ${index}: ${filler(index)}` }]);
  }

  lastCheckpoint(): string {
    return this.models.at(-1)?.requests[0]?.checkpoint ?? '';
  }

  eventsOf<T extends ForgeEvent['type']>(type: T): Extract<ForgeEvent, { type: T }>[] {
    return this.events.map((envelope) => envelope.event).filter((event) => event.type === type) as never;
  }

  async restart(): Promise<void> {
    await this.handle.close();
    this.handle = await openSessionHandle({ home: this.home, sessionId: this.handle.id });
  }
}

async function readThenOutgrown(): Promise<Session> {
  const session = await Session.start();
  await session.turn('What is the retry count?', [
    { toolCalls: [{ toolCallId: 'read_1', toolName: 'read_file', input: { path: 'src/config.ts' } }] },
    { text: 'RETRIES is 3.' },
  ]);
  await session.chatter(20);
  return session;
}

describe('the working set through a session', () => {
  it('after compaction the request carries the file read long ago, with its hash, and the event names it', async () => {
    const session = await readThenOutgrown();
    const completed = session
      .eventsOf('context.compaction.completed')
      .filter((event) => event.strategy === 'forge-state');
    expect(completed.length).toBeGreaterThan(0);
    expect(completed.at(-1)?.filesInHand).toEqual(['src/config.ts']);
    const view = session.lastCheckpoint();
    expect(view).toContain(
      `[WORKING_SET]\nfiles in hand: 1, read from disk when this checkpoint was rendered; edit them without reading again\n- file:src/config.ts sha256 ${sha256Hex('export const RETRIES = 3;\n').slice(0, 12)}, whole file, 1 line\n| export const RETRIES = 3;\n`,
    );
    expect(session.sent.at(-1)).toEqual([
      { path: 'src/config.ts', sha256: sha256Hex('export const RETRIES = 3;\n'), region: null },
    ]);
    await session.handle.close();
  });

  it('a file changed between turns changes the sent checkpoint, and the priced gate is asked about it, also after a restart', async () => {
    const session = await readThenOutgrown();
    const before = session.lastCheckpoint();
    await session.restart();
    session.workspace.files.set('src/config.ts', 'export const RETRIES = 5;\n');
    await session.turn('And now?', [{ text: 'It is 5 now.' }]);
    await session.handle.close();
    const after = session.models.at(-1)?.requests.at(-1)?.checkpoint ?? '';
    expect(after).not.toBe(before);
    expect(after).toContain('| export const RETRIES = 5;');
    expect(after).not.toContain('| export const RETRIES = 3;');
    // The new process's ledger learns the file from the first view it sends: no re-read needed to edit it.
    expect(session.sent.at(-1)).toEqual([
      { path: 'src/config.ts', sha256: sha256Hex('export const RETRIES = 5;\n'), region: null },
    ]);
    const triggered = [
      ...session.eventsOf('context.compaction.completed'),
      ...session.eventsOf('context.compaction.skipped'),
    ].filter((event) => event.trigger === 'checkpoint_changed');
    expect(triggered).toHaveLength(1);
    expect(triggered[0]?.costGate).toMatchObject({ cacheRewriteTokens: 0 });
  });

  it('without a source that reads files, the checkpoint has no working set', async () => {
    const session = await Session.start();
    const plain = session.workspace.artifactHashes;
    const model = new ScriptedModel([{ text: 'Hi.' }], {
      capabilities: { contextWindowTokens: 8_000, maxOutputTokens: 1_000 },
    });
    await session.handle.runTurn({
      model,
      request: 'Hello',
      instructions: async () => instructionsFrom('x'),
      tools: [],
      context: compact,
      artifactHashes: plain,
    });
    await session.handle.close();
    expect(model.requests[0]?.checkpoint ?? '').not.toContain('[WORKING_SET]');
  });
});
