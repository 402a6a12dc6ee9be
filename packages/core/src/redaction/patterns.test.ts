import { describe, expect, it } from 'vitest';
import { createRedactor } from './redactor.js';

/*
 * Regression: credential shapes the reliability suite's secret corpus found passing through
 * unredacted into session logs, checkpoints and `forge sessions show`. Values are assembled at run
 * time so the source holds nothing a secret scanner would flag.
 */

const { redact } = createRedactor();
const repeat = (text: string, times: number) => text.repeat(times);

const slackAppToken = `xapp-1-A${repeat('B2C3D4E5F6', 1)}-${repeat('1234567', 2)}-${repeat('a1b2c3d4', 8)}`;
const webhookPath = `T${repeat('ABCD1234', 1)}/B${repeat('EFGH5678', 1)}X/${repeat('qWeRtY12', 3)}`;
const npmToken = `npm_${repeat('Ab3dEf6hIj', 4).slice(0, 36)}`;
const huggingFaceToken = `hf_${repeat('kLmN0pQr5t', 4).slice(0, 34)}`;
const bearer = repeat('Zx9-Yw8_Vu7.', 4);
const yamlSecret = repeat('pQ7rS8tU', 4);

describe('redaction of the shapes found by the secret corpus', () => {
  const cases: readonly [string, string, string, string][] = [
    ['a Slack app-level token', `SLACK_APP ${slackAppToken} end`, slackAppToken, 'slack-token'],
    ['a Slack incoming webhook URL', `post to https://hooks.slack.com/services/${webhookPath} now`, webhookPath, 'slack-webhook'],
    ['an npm token', `//registry.npmjs.org/:_authToken=${npmToken}`, npmToken, 'npm-token'],
    ['a Hugging Face token', `login with ${huggingFaceToken}`, huggingFaceToken, 'huggingface-token'],
    ['a bearer token in a header', `curl -H "Authorization: Bearer ${bearer}" https://api.example.com`, bearer, 'bearer-token'],
    ['a YAML-style secret line', `oauth:\n  CLIENT_SECRET: ${yamlSecret}\n  client_id: app-7`, yamlSecret, 'secret-assignment'],
  ];

  it.each(cases)('removes %s', (_name, text, secret, kind) => {
    const result = redact(text);
    expect(result).toContain(`[REDACTED:${kind}]`);
    expect(result).not.toContain(secret);
    expect(result).not.toContain(secret.slice(-12));
    expect(redact(result)).toBe(result);
  });

  it('keeps what is not a secret around them', () => {
    expect(redact('client_id: app-7')).toBe('client_id: app-7');
    expect(redact('password: $DB_PASSWORD')).toBe('password: $DB_PASSWORD');
    expect(redact('the bearer of short news')).toBe('the bearer of short news');
    expect(redact('See https://hooks.slack.com/ for docs')).toBe('See https://hooks.slack.com/ for docs');
  });
});
