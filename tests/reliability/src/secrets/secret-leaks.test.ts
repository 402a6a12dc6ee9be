import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createInstructionSnapshot,
  sha256Hex,
  type AssistantMessage,
  type JsonObject,
  type Message,
} from '@forge/core';
import {
  buildDigest,
  buildForgeStateCheckpoint,
  CHECKPOINT_CAPS,
  renderCheckpointView,
  type CheckpointTranscriptEntry,
} from '@forge/core/checkpoint';
import { buildForgeState } from '@forge/core/compaction';
import { createRedactor } from '@forge/core/redaction';
import { ScriptedModel } from '@forge/core/testing';
import { runCli } from '@forge/cli/testing';
import { MAIN_LANE, OpaqueStateStore } from '@forge/persistence';
import { openSessionHandle } from '@forge/sessions';
import { beforeAll, describe, expect, it } from 'vitest';
import { reportCounts, RELIABILITY_SEED } from '../support/run-size.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';
import { readTree } from '../support/tree-files.js';
import {
  CONFIGURED_SECRET_VARIABLE,
  ENVIRONMENT_SECRET_VARIABLE,
  findLeaks,
  secretCorpus,
  type SecretSample,
} from './secret-corpus.js';
import { type StructuredSummary, withStructuredSummary } from '@forge/core/internals';

/*
 * Issue 10, point 3 (invariant 6): a corpus of secret shapes is put in user messages, file
 * contents, command output, tool inputs and model output of real `forge run` sessions; none of them
 * may reach anything Forge stores or prints about the session — session logs, traces, checkpoints
 * and their digests (built directly and through compaction strategies), opaque provider state on
 * disk, eval reports, `forge inspect` and `forge sessions show`.
 */

const temporaryDirectory = useTemporaryDirectories();
const { samples, configuredSecret, environmentSecret, keyFile } = secretCorpus(RELIABILITY_SEED);
const secretLines = samples.map((sample) => sample.text).join('\n');
/** The redactor a session of the CLI below builds: configured and secret-named environment values, plus the shapes. */
const redactor = createRedactor({ secrets: [configuredSecret, environmentSecret] });

/** Every artifact checked, by name, with its text; filled by the set-up and the tests. */
const artifacts = new Map<string, string>();
let home = '';
let workspace = '';
let sessionId = '';
let rawTranscript: Message[] = [];

function secretModel(): ScriptedModel {
  const echoed = samples.slice(0, 6).map((sample) => sample.text.split('\n')[0] ?? '');
  return new ScriptedModel([
    {
      text: `Let me look at ${samples[0]?.text ?? ''}.`,
      toolCalls: [
        { toolName: 'read_file', input: { path: 'secrets.txt' }, toolCallId: 'call_read_secrets' },
        { toolName: 'run_command', input: { argv: ['cat', 'config/deploy.env'] }, toolCallId: 'call_cat_env' },
        { toolName: 'run_command', input: { argv: ['echo', ...echoed] }, toolCallId: 'call_echo_secrets' },
        // A key file seen without its BEGIN line: a ranged read, a one-line read, a search hit.
        {
          toolName: 'read_file',
          input: { path: 'deploy/tls.key', startLine: 2, endLine: 5 },
          toolCallId: 'call_read_key_range',
        },
        {
          toolName: 'read_file',
          input: { path: 'deploy/tls.key', startLine: 4, endLine: 4 },
          toolCallId: 'call_read_key_line',
        },
        {
          toolName: 'search',
          input: { pattern: keyFile.bodyLines[2]?.slice(20, 30) ?? '', path: 'deploy' },
          toolCallId: 'call_search_key',
        },
      ],
    },
    { text: `I found these credentials:\n${secretLines}\nRotate them.` },
    { text: `Second turn: still holding ${samples[1]?.text ?? ''} and ${configuredSecret}.` },
  ]);
}

beforeAll(async () => {
  home = join(await temporaryDirectory('secrets-home'), 'forge');
  workspace = await temporaryDirectory('secrets-workspace');
  await mkdir(home, { recursive: true });
  await mkdir(join(workspace, 'config'));
  await mkdir(join(workspace, 'deploy'));
  await writeFile(join(workspace, 'deploy', 'tls.key'), keyFile.text);
  await writeFile(
    join(home, 'config.json'),
    JSON.stringify({ schemaVersion: 1, secrets: { env: [CONFIGURED_SECRET_VARIABLE] } }),
  );
  await writeFile(join(workspace, 'secrets.txt'), `${secretLines}\n`);
  await writeFile(
    join(workspace, 'config', 'deploy.env'),
    `${samples
      .filter((sample) => sample.kind.startsWith('env') || sample.kind === 'configured-secret')
      .map((sample) => sample.text)
      .join('\n')}\n`,
  );

  const model = secretModel();
  const env = {
    FORGE_HOME: home,
    [CONFIGURED_SECRET_VARIABLE]: configuredSecret,
    [ENVIRONMENT_SECRET_VARIABLE]: environmentSecret,
  };
  const first = await runCli(
    [
      'run',
      '--model',
      'test:secrets',
      '--approval',
      'workspace-auto',
      '--cwd',
      workspace,
      `Audit these credentials:\n${secretLines}`,
    ],
    {
      cwd: workspace,
      env,
      models: { secrets: model },
    },
  );
  expect(first.stderr).not.toMatch(/error/i);
  expect(first.code).toBe(0);
  sessionId = /session: (\S+)/.exec(first.stderr)?.[1] ?? '';
  expect(sessionId).not.toBe('');
  const second = await runCli(
    [
      'run',
      '--model',
      'test:secrets',
      '--resume',
      sessionId,
      '--cwd',
      workspace,
      `And this one: ${samples[2]?.text ?? ''}`,
    ],
    {
      cwd: workspace,
      env,
      models: { secrets: model },
    },
  );
  expect(second.code).toBe(0);

  // What the model was sent holds the raw secrets (the provider sees them): the unredacted transcript of turn one.
  const secondStep = model.requests[1];
  if (secondStep === undefined) throw new Error('the scripted model was not called twice');
  const answer: AssistantMessage = {
    role: 'assistant',
    content: [{ type: 'text', text: `I found these credentials:\n${secretLines}\nRotate them.` }],
  };
  rawTranscript = [secondStep.currentRequest, ...secondStep.continuation, answer];
  expect(JSON.stringify(rawTranscript)).toContain(samples[3]?.secret ?? 'missing');
  // The key file's body did reach the model through the ranged read, the one-line read and the search.
  const sentResults = JSON.stringify(secondStep.continuation);
  for (const line of keyFile.bodyLines.slice(1, 5)) expect(sentResults).toContain(line);
  expect(sentResults).toContain(`deploy/tls.key:4: ${keyFile.bodyLines[2] ?? 'missing'}`);

  for (const [path, text] of await readTree(home)) artifacts.set(`FORGE_HOME/${path}`, text);
  const cli = async (name: string, args: string[]) => {
    const outcome = await runCli(args, { cwd: workspace, env });
    expect(outcome.code, `${name}: ${outcome.stderr}`).toBe(0);
    artifacts.set(name, `${outcome.stdout}\n${outcome.stderr}`);
  };
  await cli('forge inspect (text)', ['inspect', sessionId]);
  await cli('forge inspect --json', ['inspect', sessionId, '--json']);
  const html = join(workspace, 'inspect.html');
  await cli('forge inspect --html (terminal)', ['inspect', sessionId, '--html', html]);
  artifacts.set('forge inspect --html (page)', await readFile(html, 'utf8'));
  await cli('forge sessions show (text)', ['sessions', 'show', sessionId]);
  await cli('forge sessions show --json', ['sessions', 'show', sessionId, '--json']);
  await cli('forge sessions list --json', ['sessions', 'list', '--json']);
}, 60_000);

function entries(messages: readonly Message[]): CheckpointTranscriptEntry[] {
  return messages.map((message) => ({ message, runId: 'run_secrets' }));
}

function leaksIn(names: readonly string[]): { artifact: string; kind: string; fragment: string }[] {
  return names.flatMap((artifact) =>
    findLeaks(samples, artifacts.get(artifact) ?? '').map((leak) => ({ artifact, ...leak })),
  );
}

describe('secrets never leave the session unredacted', () => {
  it(`the corpus has at least 60 shapes (${samples.length})`, () => {
    expect(samples.length).toBeGreaterThanOrEqual(60);
    expect(new Set(samples.map((sample: SecretSample) => sample.kind)).size).toBe(samples.length);
  });

  it('stored session logs, traces, inspect and sessions output hold none of them', () => {
    const stored = [...artifacts.keys()];
    expect(stored.some((name) => name.startsWith('FORGE_HOME/sessions/'))).toBe(true);
    expect(stored.some((name) => name.startsWith('FORGE_HOME/runs/'))).toBe(true);
    expect(leaksIn(stored)).toEqual([]);
  });

  it('checkpoints and digests built from the unredacted transcript hold none of them', () => {
    const transcript = entries(rawTranscript);
    const checkpoint = buildForgeStateCheckpoint({ transcript, tailStart: transcript.length, redact: redactor.redact });
    artifacts.set('checkpoint (forge-state)', JSON.stringify(checkpoint));
    artifacts.set('checkpoint view', renderCheckpointView(checkpoint));
    artifacts.set(
      'digest',
      JSON.stringify(buildDigest(transcript, transcript.length, CHECKPOINT_CAPS, redactor.redact)),
    );
    const built = buildForgeState({
      transcript,
      tailStart: transcript.length,
      redact: redactor.redact,
      caps: CHECKPOINT_CAPS,
    });
    artifacts.set('compaction: forge-state view', built.view);
    const summary: StructuredSummary = {
      activeGoal: `Rotate ${samples[0]?.text ?? ''}`,
      phase: 'audit',
      completedWork: samples.slice(0, 8).map((sample) => `found ${sample.text}`),
      decisions: [{ decision: `revoke ${samples[6]?.text ?? ''}`, rationale: `it was in ${samples[7]?.text ?? ''}` }],
      rejectedApproaches: [],
      changedFiles: [],
      commandsAndResults: [{ command: `echo ${samples[8]?.text ?? ''}`, result: samples[9]?.text ?? '' }],
      references: [],
      constraints: [],
      blockers: [`${configuredSecret} is still live`],
      nextAction: null,
    } as unknown as StructuredSummary;
    const structured = withStructuredSummary(checkpoint, summary, redactor.redact, CHECKPOINT_CAPS);
    artifacts.set('compaction: model-structured checkpoint', JSON.stringify(structured.checkpoint));
    artifacts.set('compaction: model-structured view', structured.view);
    expect(
      leaksIn([
        'checkpoint (forge-state)',
        'checkpoint view',
        'digest',
        'compaction: forge-state view',
        'compaction: model-structured checkpoint',
        'compaction: model-structured view',
      ]),
    ).toEqual([]);
  });

  it('a session compacted by a compactor model that repeats secrets stores none of them, and the compactor is sent none', async () => {
    const summary = {
      activeGoal: `Rotate ${samples[0]?.text ?? ''}`,
      phase: 'audit',
      completedWork: samples.slice(0, 10).map((sample) => `found ${sample.text}`),
      decisions: [{ decision: `revoke ${samples[12]?.text ?? ''}`, rationale: `leaked in ${samples[13]?.text ?? ''}` }],
      rejectedApproaches: [],
      changedFiles: [],
      commandsAndResults: [{ command: `echo ${samples[14]?.text ?? ''}`, result: samples[15]?.text ?? '' }],
      references: [],
      constraints: [],
      blockers: [`${configuredSecret} is still live`, ...samples.slice(16, 22).map((sample) => sample.text)],
      nextAction: `rotate ${samples[22]?.text ?? ''}`,
    };
    const compactor = new ScriptedModel([{ text: JSON.stringify(summary) }], { modelId: 'compactor' });
    const handle = await openSessionHandle({ home, sessionId, redactor });
    try {
      const result = await handle.compact({
        model: new ScriptedModel([]),
        instructions: createInstructionSnapshot('Compact.'),
        context: { recentTailTokens: 200 },
        compaction: { strategy: { kind: 'model-structured', compactor } },
      });
      expect(result.outcome.kind).toBe('compacted');
      if (result.outcome.kind === 'compacted') expect(result.outcome.strategy).toBe('model-structured');
    } finally {
      await handle.close();
    }
    artifacts.set('compactor requests', JSON.stringify(compactor.requests));
    for (const [path, text] of await readTree(join(home, 'sessions')))
      artifacts.set(`FORGE_HOME/sessions/${path} (after compaction)`, text);
    const dryRun = await runCli(['compact', '--dry-run', '--session', sessionId], {
      cwd: workspace,
      env: {
        FORGE_HOME: home,
        [CONFIGURED_SECRET_VARIABLE]: configuredSecret,
        [ENVIRONMENT_SECRET_VARIABLE]: environmentSecret,
      },
    });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    artifacts.set('forge compact --dry-run', `${dryRun.stdout}\n${dryRun.stderr}`);
    const names = [...artifacts.keys()].filter(
      (name) =>
        name.includes('(after compaction)') || name === 'compactor requests' || name === 'forge compact --dry-run',
    );
    expect(leaksIn(names)).toEqual([]);
  });

  it('opaque provider state written to disk holds none of them', async () => {
    const directory = join(home, 'state', 'native-compaction');
    const store = new OpaqueStateStore({ directory, persist: true, redactor });
    const clean: JsonObject[] = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Audit the credentials.' }] },
    ];
    const cleanText = JSON.stringify(clean);
    await store.save(
      { sessionId, lane: MAIN_LANE },
      {
        provider: 'openai',
        modelId: 'gpt-5.1',
        itemHash: sha256Hex(cleanText),
        bytes: Buffer.byteLength(cleanText),
        items: clean,
        sourceHash: sha256Hex('source'),
        sourceMessages: 1,
        previousItemHash: null,
      },
    );
    expect((await readTree(directory)).size).toBe(1);
    const items: JsonObject[] = [
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: `Audit these credentials:\n${secretLines}` }],
      },
      { type: 'compaction', encrypted_content: 'gAAAAB-opaque' },
    ];
    const serialized = JSON.stringify(items);
    await store.save(
      { sessionId, lane: MAIN_LANE },
      {
        provider: 'openai',
        modelId: 'gpt-5.1',
        itemHash: sha256Hex(serialized),
        bytes: Buffer.byteLength(serialized),
        items,
        sourceHash: sha256Hex('source'),
        sourceMessages: 2,
        previousItemHash: null,
      },
    );
    for (const [path, text] of await readTree(directory)) artifacts.set(`opaque state ${path}`, text);
    expect(leaksIn([...artifacts.keys()].filter((name) => name.startsWith('opaque state')))).toEqual([]);
  });

  it('an eval report over a fixture full of secrets holds none of them', async () => {
    const fixtures = await temporaryDirectory('secrets-fixtures');
    const reportDirectory = join(await temporaryDirectory('secrets-report'), 'report');
    const fixture = {
      formatVersion: 1,
      id: 'secret-audit',
      title: 'Secret audit',
      description: `Secrets in files, commands and user messages, such as ${samples[4]?.text ?? ''}.`,
      model: { contextWindowTokens: 16000 },
      context: { recentTailTokens: 2000 },
      files: [{ path: 'secrets.txt', content: `fact:audit.count=${samples.length}\n${secretLines}\n` }],
      commands: [
        {
          id: 'dump',
          argv: ['cat', 'secrets.txt'],
          results: [{ exitCode: 1, output: `${secretLines}\nFAIL: credentials found` }],
        },
      ],
      turns: [
        {
          user: `Read secrets.txt and report its audit.count fact, as "fact audit.count = <value>". Context: ${secretLines}`,
          steps: [{ op: 'learn', path: 'secrets.txt', key: 'audit.count' }],
        },
        {
          user: 'Run the dump command once.',
          steps: [{ op: 'run', command: 'dump' }],
          expectStatus: ['completed', 'failed'],
        },
        { filler: 4, tokensPerTurn: 1500 },
        {
          user: 'Which audit.count did the file say? Answer as "fact audit.count = <value>".',
          steps: [{ op: 'learn', path: 'secrets.txt', key: 'audit.count' }],
        },
      ],
    };
    await writeFile(join(fixtures, 'secret-audit.json'), JSON.stringify(fixture, null, 2));
    const outcome = await runCli(
      [
        'eval',
        '--fixtures',
        fixtures,
        '--mode',
        'compact:forge-state,baseline:sliding-window',
        '--report',
        reportDirectory,
        '--json',
      ],
      {
        cwd: workspace,
        env: { FORGE_HOME: home },
      },
    );
    expect([0, 1], outcome.stderr).toContain(outcome.code);
    expect(outcome.stderr).not.toMatch(/forge: error/);
    artifacts.set('forge eval --json', `${outcome.stdout}\n${outcome.stderr}`);
    const report = await readTree(reportDirectory);
    expect(report.size).toBeGreaterThan(0);
    for (const [path, text] of report) artifacts.set(`eval report ${path}`, text);
    expect(
      leaksIn([...artifacts.keys()].filter((name) => name.startsWith('eval report') || name.startsWith('forge eval'))),
    ).toEqual([]);
  });

  it('prints how many secrets were tried and how many leaked', () => {
    const names = [...artifacts.keys()];
    const leaks = leaksIn(names);
    reportCounts('secrets', {
      shapes: samples.length,
      artifacts: names.length,
      tried: samples.length * names.length,
      leaked: leaks.length,
    });
    expect(names.length).toBeGreaterThan(10);
    expect(leaks).toEqual([]);
  });
});
