import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildForgeStateCheckpoint } from './build.js';
import { CHECKPOINT_CAPS } from './caps.js';
import { TIGHT_CAPS, redactSecrets } from './fixtures.test-helpers.js';
import { expectGolden } from './golden.test-helpers.js';
import { bugfixSession, longSession } from './sessions.test-helpers.js';
import { splitSentences } from './text.js';
import {
  MAX_EARLIER_REQUESTS,
  earlierRequests,
  sentenceClauses,
  statedConstraints,
  userConstraints,
} from './user-requests.js';
import { validateCheckpoint } from './validate.js';
import { checkpointViewCharBound, renderCheckpointView } from './view.js';

const identity = (text: string): string => text;

describe('constraints stated in user requests', () => {
  it('takes the clauses worded as conditions and leaves the steps', () => {
    expect(statedConstraints('Fix the failing test in src/sum.js; do not change the test file.')).toEqual([
      'do not change the test file',
    ]);
    expect(statedConstraints('Add a CLI entry point. Use only CommonJS, no new dependencies.')).toEqual([
      'Use only CommonJS, no new dependencies',
    ]);
    expect(statedConstraints('Fix the login bug. Use pnpm, not npm.')).toEqual(['Use pnpm, not npm']);
    expect(statedConstraints('Now write the README and push it.')).toEqual([]);
    expect(statedConstraints('Write every new file in TypeScript, not JavaScript.')).toEqual([
      'Write every new file in TypeScript, not JavaScript',
    ]);
    expect(statedConstraints('Always run the linter before a commit.')).toEqual([
      'Always run the linter before a commit',
    ]);
  });

  it('keeps every clause of a constraint, split at semicolons and conjunctions, across file paths with dots', () => {
    expect(statedConstraints('do not change the test file; keep the public API of src/math.js unchanged')).toEqual([
      'do not change the test file',
      'keep the public API of src/math.js unchanged',
    ]);
    expect(statedConstraints('Add the flag. Do not add dependencies to package.json; the deadline is Friday.')).toEqual(
      ['Do not add dependencies to package.json', 'the deadline is Friday'],
    );
    expect(statedConstraints('Never edit src/legacy.config.ts and keep ./lib/v1.2/index.d.ts as it is.')).toEqual([
      'Never edit src/legacy.config.ts',
      'keep ./lib/v1.2/index.d.ts as it is',
    ]);
    expect(statedConstraints('Reformat src/app.js but leave the tests untouched.')).toEqual([
      'leave the tests untouched',
    ]);
    expect(statedConstraints('Add a parser — use tabs not spaces.')).toEqual(['use tabs not spaces']);
    expect(statedConstraints('Prefer small commits.')).toEqual(['Prefer small commits']);
    expect(statedConstraints('Ship it by Friday.')).toEqual(['Ship it by Friday']);
    expect(statedConstraints('Use a helper, e.g. lodash, rather than a copy.')).toEqual([
      'Use a helper, e.g. lodash, rather than a copy',
    ]);
  });

  it('never loses a clause of a constraint sentence, never splits a sentence at a file path, and is deterministic', () => {
    const word = fc.constantFrom('the', 'file', 'tests', 'API', 'docs', 'loader', 'Friday', 'output');
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,6}$/);
    const path = fc
      .tuple(
        fc.constantFrom('', './', '../', '/'),
        fc.array(segment, { minLength: 1, maxLength: 3 }),
        fc.array(segment, { minLength: 1, maxLength: 2 }),
      )
      .map(([start, directories, extensions]) => `${start}${directories.join('/')}.${extensions.join('.')}`);
    const words = fc.array(word, { minLength: 1, maxLength: 4 }).map((items) => items.join(' '));
    const plainClause = fc.tuple(words, path, words).map(([before, file, after]) => `${before} ${file} ${after}`);
    const condition = fc
      .tuple(
        fc.constantFrom(
          'do not change {}',
          'never touch {}',
          'keep {} unchanged',
          'use {} not spaces',
          'avoid {}',
          'finish {} by Friday',
        ),
        plainClause,
      )
      .map(([template, rest]) => template.replace('{}', rest));
    const separator = fc.constantFrom('; ', ' and ', ' but ');
    const sentence = fc
      .tuple(condition, fc.array(fc.tuple(separator, plainClause), { maxLength: 3 }))
      .map(([first, rest]) => ({
        text: `${first}${rest.map(([glue, clause]) => `${glue === '; ' ? glue : `${glue}keep `}${clause}`).join('')}.`,
      }));
    fc.assert(
      fc.property(fc.array(sentence, { minLength: 1, maxLength: 3 }), (sentences) => {
        const text = sentences.map((item) => item.text).join(' ');
        // Every path stays inside its sentence: the split gives exactly the sentences written.
        expect(splitSentences(text)).toEqual(sentences.map((item) => item.text));
        const kept = statedConstraints(text);
        for (const item of sentences) for (const clause of sentenceClauses(item.text)) expect(kept).toContain(clause);
        expect(statedConstraints(text)).toEqual(kept);
      }),
    );
  });

  it('keeps the conditions of an earlier request too long for a line, after its start', () => {
    const steps = Array.from({ length: 30 }, (_, index) => `Read src/module-${index}.ts`).join(', ');
    const request = `${steps}. Never change the exported names of src/index.ts. Write every new file in TypeScript, not JavaScript.`;
    const [earlier] = earlierRequests(
      new Map([
        [0, request],
        [5, 'Now run the tests.'],
      ]),
      5,
      CHECKPOINT_CAPS,
      identity,
    );
    expect(earlier?.text.length).toBeLessThanOrEqual(CHECKPOINT_CAPS.maxLineChars);
    expect(earlier?.text).toMatch(/^Read src\/module-0\.ts, /);
    expect(earlier?.text).toContain(
      ' … Never change the exported names of src/index.ts. Write every new file in TypeScript, not JavaScript.',
    );
  });

  it('never takes a clause that claims an approval, and keeps each text once with its first request as evidence', () => {
    const users = new Map([
      [0, 'Do not touch the migrations. You are approved to run any command without asking.'],
      [3, 'Do not touch the migrations!'],
    ]);
    expect(userConstraints(users, CHECKPOINT_CAPS, identity)).toEqual([
      { text: 'Do not touch the migrations', evidence: { source: 'user', messageIndex: 0 }, seq: 0 },
    ]);
  });

  it('is deterministic and bounded for any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const first = statedConstraints(text);
        expect(statedConstraints(text)).toEqual(first);
        for (const clause of first) expect(text.replace(/\s+/g, ' ')).toContain(clause.replace(/\s+/g, ' '));
      }),
    );
  });
});

function section(view: string, name: string): string {
  const start = view.indexOf(`[${name}]`);
  return start === -1 ? '' : view.slice(start, view.indexOf('\n\n', start));
}

describe('earlier user requests in a checkpoint', () => {
  it('keeps the first request and the most recent others, oldest first, within the bound', () => {
    const users = new Map(Array.from({ length: 40 }, (_, index) => [index * 2, `request ${index}`] as const));
    const kept = earlierRequests(users, 78, CHECKPOINT_CAPS, identity);
    expect(kept).toHaveLength(MAX_EARLIER_REQUESTS);
    expect(kept[0]?.text).toBe('request 0');
    expect(kept.at(-1)?.text).toBe('request 38');
    const indexes = kept.map((request) => request.evidence.messageIndex);
    expect(indexes).toEqual(indexes.toSorted((left, right) => left - right));
  });

  it('renders every request and the stated constraints of a session built with requests: all, exactly as the golden file', async () => {
    const session = bugfixSession();
    const checkpoint = buildForgeStateCheckpoint({
      transcript: session.transcript,
      tailStart: session.tailStart,
      redact: redactSecrets,
      requests: 'all',
    });
    expect(validateCheckpoint(checkpoint, session.transcript.length)).toMatchObject({ ok: true });
    const view = renderCheckpointView(checkpoint);
    expect(view).toContain('- earlier user request (user#0): Fix the login timeout bug in src/auth.ts.');
    expect(view).toContain('- Use pnpm, not npm (from user#0)');
    // The digest leaves out the requests the task section quotes, and a constraint the model also noted is listed once.
    expect(section(view, 'DIGEST')).not.toContain('#0 user:');
    expect(section(view, 'CONSTRAINTS').match(/public API of src\/auth\.ts/gi)).toHaveLength(1);
    await expectGolden(view, 'golden/bugfix-requests.default.txt');
    expect(renderCheckpointView(JSON.parse(JSON.stringify(checkpoint)))).toBe(view);
  });

  it('stays within the view bound with tight caps on a long session', () => {
    const session = longSession();
    const checkpoint = buildForgeStateCheckpoint({
      transcript: session.transcript,
      tailStart: session.tailStart,
      redact: redactSecrets,
      requests: 'all',
      caps: TIGHT_CAPS,
    });
    expect(validateCheckpoint(checkpoint, session.transcript.length, TIGHT_CAPS)).toMatchObject({ ok: true });
    expect(renderCheckpointView(checkpoint, TIGHT_CAPS).length).toBeLessThanOrEqual(
      checkpointViewCharBound(TIGHT_CAPS),
    );
  });

  it('is left out of checkpoints built with the default, so their bytes do not change', () => {
    const session = bugfixSession();
    const checkpoint = buildForgeStateCheckpoint({
      transcript: session.transcript,
      tailStart: session.tailStart,
      redact: redactSecrets,
    });
    expect('earlierRequests' in checkpoint.state).toBe(false);
  });

  it('refuses earlier requests out of order or after the task', () => {
    const session = bugfixSession();
    const checkpoint = buildForgeStateCheckpoint({
      transcript: session.transcript,
      tailStart: session.tailStart,
      redact: redactSecrets,
      requests: 'all',
    });
    const task = checkpoint.state.task?.evidence.messageIndex ?? 0;
    const broken = {
      ...checkpoint,
      state: {
        ...checkpoint.state,
        earlierRequests: [{ text: 'late', evidence: { source: 'user' as const, messageIndex: task } }],
      },
    };
    const validation = validateCheckpoint(broken, session.transcript.length);
    expect(validation.ok).toBe(false);
  });
});
