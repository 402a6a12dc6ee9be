import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { APPROVAL_PROFILES, loadConfig, parseConfigText, projectConfigPath, userConfigPath } from '@forge/config';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzz, MAX_RSS_GROWTH_MB, onlyTypedErrors } from '../support/fuzz-harness.js';
import { reportCounts, runSize, suiteTimeoutMs } from '../support/run-size.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/*
 * Issue 10, point 2: the configuration loader on random text, random JSON and configuration-shaped
 * JSON (the schema's keys with good and bad values), in the user file, the project file, the
 * environment and the flags. Only ConfigError (a ForgeError) may escape, and whatever loads obeys
 * the project rule: a project never loosens the approval profile and never adds servers.
 */

const RUNS = runSize(500, 100_000);
const temporaryDirectory = useTemporaryDirectories();

const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string(), fc.integer(), fc.double(), fc.constant(null));

/** Mostly a good value, sometimes anything. */
function mostly<T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: anyValue });
}

type Shape = <T>(good: fc.Arbitrary<T>) => fc.Arbitrary<unknown>;

/** Configuration-shaped objects: `shape` decides whether each value is good (`fc` as is) or sometimes bad (`mostly`). */
function configShaped(shape: Shape): fc.Arbitrary<Record<string, unknown>> {
  const tokens = shape(fc.nat({ max: 400_000 }));
  const contextSection = fc.record(
    {
      mode: shape(fc.constantFrom('off', 'warn', 'shadow', 'compact')),
      reservedOutputTokens: tokens,
      bufferTokens: tokens,
      recentTailTokens: tokens,
      summaryTargetTokens: tokens,
      warnAtRatio: shape(fc.double({ min: 0.05, max: 1, noNaN: true })),
      fallbackContextWindowTokens: shape(fc.integer({ min: 1, max: 1_000_000 })),
    },
    { requiredKeys: [] },
  );
  const compatibleModel = fc.record(
    {
      name: shape(fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/)),
      baseURL: shape(fc.constant('http://127.0.0.1:11434/v1')),
      modelId: shape(fc.string({ minLength: 1 })),
      contextWindowTokens: shape(fc.integer({ min: 1, max: 1_000_000 })),
      apiKeyVariable: shape(fc.constant('LOCAL_KEY')),
    },
    { requiredKeys: ['name', 'baseURL', 'modelId', 'contextWindowTokens'] },
  );
  return fc.record(
    {
      schemaVersion: shape(fc.constant(1)),
      $schema: shape(fc.string()),
      model: shape(fc.constantFrom('openai:gpt-5.1', 'deepseek:deepseek-chat', 'compatible:local', 'scripted:demo')),
      approval: shape(fc.record({ profile: shape(fc.constantFrom(...APPROVAL_PROFILES)) })),
      secrets: shape(
        fc.record({ env: fc.array(shape(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,20}$/)), { maxLength: 4 }) }),
      ),
      models: shape(fc.array(compatibleModel, { maxLength: 2 })),
      context: shape(contextSection),
      mcpServers: shape(
        fc.array(
          fc.record({
            name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
            command: fc.constantFrom('node', 'npx'),
            args: fc.array(fc.string()),
          }),
          { maxLength: 2 },
        ),
      ),
    },
    { requiredKeys: ['schemaVersion'] },
  );
}

const goodConfig = configShaped((good) => good);
const noisyConfig = fc
  .tuple(
    configShaped(mostly),
    fc.option(fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), anyValue), { nil: undefined }),
  )
  .map(([value, extra]) => (extra === undefined ? value : { ...value, [extra[0]]: extra[1] }));

const fileText = fc.oneof(
  { weight: 5, arbitrary: goodConfig.map((value) => JSON.stringify(value)) },
  { weight: 5, arbitrary: noisyConfig.map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
  { weight: 1, arbitrary: noisyConfig.map((value) => JSON.stringify(value).slice(0, -1)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((text) => `\uFEFF${text}`) },
);

const environment = fc.dictionary(
  fc.constantFrom(
    'FORGE_MODEL',
    'FORGE_APPROVAL',
    'FORGE_SECRET_ENV',
    'FORGE_CONTEXT_MODE',
    'FORGE_CONTEXT_BUFFER_TOKENS',
    'FORGE_CONTEXT_WARN_AT_RATIO',
    'FORGE_CONTEXT_RECENT_TAIL_TOKENS',
  ),
  fc.oneof(
    fc.constantFrom('ask', 'workspace-auto', 'compact', '12000', '0.5', 'openai:gpt-5.1', 'A,B'),
    fc.string({ maxLength: 20 }),
  ),
  { maxKeys: 3 },
);

const strictness = (name: string): number =>
  APPROVAL_PROFILES.length - APPROVAL_PROFILES.indexOf(name as (typeof APPROVAL_PROFILES)[number]);

describe('fuzzing the configuration loader', () => {
  it(
    'parseConfigText lets only ConfigError escape',
    async () => {
      const stats = await fuzz(
        fileText,
        (text) => {
          try {
            parseConfigText(text, 'fuzz.json');
          } catch (error) {
            onlyTypedErrors(error);
          }
        },
        { target: 'config-text', numRuns: RUNS, caseTimeoutMs: 2_000 },
      );
      reportCounts('fuzz config-text', {
        cases: stats.cases,
        slowestCaseMs: stats.slowestCaseMs,
        rssGrowthMb: stats.rssGrowthMb,
      });
      expect(stats.rssGrowthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
    },
    suiteTimeoutMs(30_000),
  );

  it(
    'loadConfig lets only ConfigError escape and a project never loosens approvals or adds servers',
    async () => {
      const root = await temporaryDirectory('fuzz-config');
      const home = join(root, 'home');
      const workspace = join(root, 'workspace');
      let loaded = 0;
      const stats = await fuzz(
        fc.record({
          user: fc.option(
            fc.oneof(
              fileText,
              goodConfig.map((value) => JSON.stringify(value)),
            ),
            { nil: undefined },
          ),
          project: fc.option(
            fc.oneof(
              fileText,
              goodConfig.map((value) => JSON.stringify(value)),
            ),
            { nil: undefined },
          ),
          env: environment,
          flags: fc.option(
            fc.oneof(goodConfig, noisyConfig).map(({ schemaVersion: _version, $schema: _schema, ...rest }) => rest),
            { nil: undefined, freq: 3 },
          ),
        }),
        async (input) => {
          await rm(root, { recursive: true, force: true });
          await mkdir(home, { recursive: true });
          await mkdir(join(workspace, '.forge'), { recursive: true });
          if (input.user !== undefined) await writeFile(userConfigPath(home), input.user);
          if (input.project !== undefined) await writeFile(projectConfigPath(workspace), input.project);
          let result;
          try {
            result = await loadConfig({
              forgeHome: home,
              workspaceRoot: workspace,
              env: input.env,
              ...(input.flags === undefined ? {} : { flags: input.flags as never }),
            });
          } catch (error) {
            onlyTypedErrors(error);
            return;
          }
          loaded += 1;
          if (input.env['FORGE_APPROVAL'] === undefined && input.flags === undefined) {
            const { config, provenance } = result;
            if (provenance['approval.profile']?.source === 'project') {
              const userOnly = await loadConfig({ forgeHome: home, workspaceRoot: join(root, 'no-project'), env: {} });
              expect(strictness(config.approval.profile)).toBeGreaterThanOrEqual(
                strictness(userOnly.config.approval.profile),
              );
            }
            expect(provenance['models']?.source).not.toBe('project');
            expect(provenance['mcpServers']?.source).not.toBe('project');
          }
        },
        { target: 'config-load', numRuns: runSize(Math.ceil(RUNS / 2), RUNS), caseTimeoutMs: 5_000 },
      );
      reportCounts('fuzz config-load', {
        cases: stats.cases,
        loaded,
        slowestCaseMs: stats.slowestCaseMs,
        rssGrowthMb: stats.rssGrowthMb,
      });
      expect(loaded).toBeGreaterThan(0);
      expect(stats.rssGrowthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
    },
    suiteTimeoutMs(40_000),
  );
});
