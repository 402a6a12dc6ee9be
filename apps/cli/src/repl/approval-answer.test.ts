import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseApprovalAnswer } from './approval-answer.js';

describe('parseApprovalAnswer', () => {
  it.each([
    ['y', { kind: 'once' }],
    ['Yes', { kind: 'once' }],
    ['  y  ', { kind: 'once' }],
    ['s', { kind: 'session' }],
    ['SESSION', { kind: 'session' }],
    ['n', { kind: 'deny' }],
    ['no', { kind: 'deny' }],
    ['n use the test script instead', { kind: 'deny', feedback: 'use the test script instead' }],
    ['n: not that file', { kind: 'deny', feedback: 'not that file' }],
    ['no, ask me later', { kind: 'deny', feedback: 'ask me later' }],
  ] as const)('reads %j', (text, expected) => {
    expect(parseApprovalAnswer(text)).toEqual(expected);
  });

  it.each(['', '   ', 'maybe', 'yes please', 's for now', 'nope', 'ok', '?'])('asks again after %j', (text) => {
    expect(parseApprovalAnswer(text)).toBeUndefined();
  });

  it('never grants anything for an answer that does not start with y or s', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const answer = parseApprovalAnswer(text);
        if (answer?.kind === 'once' || answer?.kind === 'session')
          expect(text.trim().toLowerCase()).toMatch(/^(y|yes|s|session)$/);
      }),
    );
  });

  it('passes any feedback after n to the model, trimmed', () => {
    // A leading ":" or "," is read as the separator after n, so feedback starting with one is left out here.
    const feedback = fc.string({ minLength: 1 }).filter((text) => text.trim().length > 0 && !/^[:,]/.test(text.trim()));
    fc.assert(
      fc.property(feedback, (text) => {
        expect(parseApprovalAnswer(`n ${text}`)).toEqual({ kind: 'deny', feedback: text.trim() });
      }),
    );
  });
});
