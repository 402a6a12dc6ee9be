import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { messageSchema } from '@forge/core';
import { listSessions, loadTranscript } from '@forge/persistence';
import { openSessionHandle } from '@forge/sessions';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { byteMutations, fuzz, jsonMutations, MAX_RSS_GROWTH_MB, onlyTypedErrors } from '../support/fuzz-harness.js';
import { packageFile } from '../support/package-files.js';
import { reportCounts, runSize, suiteTimeoutMs } from '../support/run-size.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/*
 * Issue 10, point 2: the session loader (schema v1 and v2) on random bytes and on random edits of
 * the frozen fixtures — byte edits, and record edits re-sealed with a valid checksum so they reach
 * the schema and the state checks. Only ForgeErrors may escape; a loaded session holds valid messages.
 */

const RUNS = runSize(400, 100_000);
const temporaryDirectory = useTemporaryDirectories();
const ID = 'fuzz_session';

let v2Full: Buffer;
let v2Torn: Buffer;
let v1Demo: Buffer;
let v1Empty: Buffer;

beforeAll(async () => {
  const fixtures = packageFile('@forge/persistence', 'fixtures');
  v2Full = await readFile(join(fixtures, 'v2', 'sessions', 'fixture_v2_full', 'session.jsonl'));
  v2Torn = await readFile(join(fixtures, 'v2', 'sessions', 'fixture_v2_torn', 'session.jsonl'));
  v1Demo = await readFile(join(fixtures, 'v1', 'sessions', 'legacy_2024_demo.json'));
  v1Empty = await readFile(join(fixtures, 'v1', 'sessions', 'legacy_empty.json'));
});

/** Re-seals a record as the v2 log format does: its JSON with `,"crc":"…"}` in place of the last brace. */
function sealRecord(record: unknown): string {
  const body = JSON.stringify(record) ?? 'null';
  const prefix = body.endsWith('}') ? body.slice(0, -1) : body;
  return `${prefix},"crc":"${crc32(prefix).toString(16).padStart(8, '0')}"}`;
}

/** The fixture's records with the session id changed to `ID` (so the header matches the file name). */
function v2Records(bytes: Buffer, fixtureId: string): unknown[] {
  return bytes
    .toString('utf8')
    .split('\n')
    .filter((line) => line.endsWith('}'))
    .map(
      (line) =>
        JSON.parse(line.replace(/,"crc":"[0-9a-f]{8}"\}$/, '}').replaceAll(`"${fixtureId}"`, `"${ID}"`)) as unknown,
    );
}

function sealedLog(records: readonly unknown[]): Buffer {
  return Buffer.from(records.map((record) => `${sealRecord(record)}\n`).join(''), 'utf8');
}

type SessionCase = { readonly layout: 'v1' | 'v2'; readonly bytes: Uint8Array; readonly open: boolean };

function sessionCases(): fc.Arbitrary<SessionCase> {
  const v2 = sealedLog(v2Records(v2Full, 'fixture_v2_full'));
  const v2TornRenamed = Buffer.from(v2Torn.toString('utf8').replaceAll('fixture_v2_torn', ID), 'utf8');
  const records = v2Records(v2Full, 'fixture_v2_full');
  const v1 = JSON.parse(v1Demo.toString('utf8').replaceAll('legacy_2024_demo', ID)) as unknown;
  const v1EmptyRenamed = Buffer.from(v1Empty.toString('utf8').replaceAll('legacy_empty', ID), 'utf8');

  const v2Bytes = fc.oneof(
    // Cut anywhere: what a crash mid-write leaves.
    fc.nat({ max: v2.length }).map((end) => v2.subarray(0, end)),
    byteMutations(v2),
    byteMutations(v2TornRenamed),
    // Record edits that keep a valid checksum: reach the schema and the ordering checks.
    fc
      .tuple(fc.nat({ max: records.length - 1 }), jsonMutations(records[0]))
      .chain(([index]) =>
        jsonMutations(records[index]).map((mutated) =>
          sealedLog(records.map((record, position) => (position === index ? mutated : record))),
        ),
      ),
    fc.shuffledSubarray(records, { minLength: 1 }).map((subset) => sealedLog(subset)),
    fc.array(fc.constantFrom(...records), { minLength: 1, maxLength: 30 }).map((list) => sealedLog(list)),
    fc.uint8Array({ maxLength: 4096 }),
    fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }).map((values) => sealedLog(values)),
  );
  const v1Bytes = fc.oneof(
    byteMutations(Buffer.from(JSON.stringify(v1), 'utf8')),
    byteMutations(v1EmptyRenamed),
    jsonMutations(v1).map((value) => Buffer.from(JSON.stringify(value) ?? '', 'utf8')),
    fc.uint8Array({ maxLength: 2048 }),
  );
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        layout: fc.constant('v2' as const),
        bytes: v2Bytes,
        open: fc.nat({ max: 7 }).map((value) => value === 0),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        layout: fc.constant('v1' as const),
        bytes: v1Bytes,
        open: fc.nat({ max: 7 }).map((value) => value === 0),
      }),
    },
  );
}

describe('fuzzing the session loader', () => {
  it(
    'lets only typed errors escape from loading, listing and opening damaged v1 and v2 sessions',
    async () => {
      const home = await temporaryDirectory('fuzz-sessions');
      const sessions = join(home, 'sessions');
      let loaded = 0;
      let opened = 0;
      const stats = await fuzz(
        sessionCases(),
        async (input) => {
          await rm(sessions, { recursive: true, force: true });
          await mkdir(join(sessions, ID), { recursive: true });
          if (input.layout === 'v2') await writeFile(join(sessions, ID, 'session.jsonl'), input.bytes);
          else {
            await rm(join(sessions, ID), { recursive: true });
            await writeFile(join(sessions, `${ID}.json`), input.bytes);
          }
          try {
            const transcript = await loadTranscript(home, ID);
            loaded += 1;
            for (const message of transcript.messages) expect(messageSchema.safeParse(message).success).toBe(true);
          } catch (error) {
            onlyTypedErrors(error);
          }
          const summaries = await listSessions(home);
          expect(summaries.length).toBeLessThanOrEqual(1);
          if (!input.open) return;
          try {
            const handle = await openSessionHandle({ home, sessionId: ID });
            opened += 1;
            await handle.close();
          } catch (error) {
            onlyTypedErrors(error);
          }
        },
        { target: 'session-loader', numRuns: RUNS, caseTimeoutMs: 5_000 },
      );
      reportCounts('fuzz session-loader', {
        cases: stats.cases,
        loaded,
        opened,
        slowestCaseMs: stats.slowestCaseMs,
        rssGrowthMb: stats.rssGrowthMb,
      });
      expect(stats.cases).toBe(RUNS);
      expect(stats.rssGrowthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
    },
    suiteTimeoutMs(60_000),
  );
});
