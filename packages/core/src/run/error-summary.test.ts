import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { summarizeError } from './error-summary.js';

describe('summarizeError', () => {
  it("keeps a ForgeError's code and retryability, and files anything else under the fallback code", () => {
    expect(summarizeError(new InvalidInputError({ message: 'bad flag' }))).toEqual({
      code: 'invalid_input',
      message: 'bad flag',
      isRetryable: false,
    });
    expect(summarizeError(new Error('disk gone'))).toEqual({
      code: 'unexpected',
      message: 'disk gone',
      isRetryable: false,
    });
    expect(summarizeError('plain text', 'host_failure')).toEqual({
      code: 'host_failure',
      message: 'plain text',
      isRetryable: false,
    });
  });
});
