import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor } from './redactor.js';

const { redact, redactJson } = createRedactor();

/* Fake credentials assembled at run time so the source holds no string a secret scanner would flag. */
const repeat = (text: string, times: number) => text.repeat(times);
const openaiKey = `sk-${repeat('A1b2C3d4', 6)}`;
const openaiProjectKey = `sk-proj-${repeat('Zz9_Yy8-', 8)}`;
const anthropicKey = `sk-ant-api03-${repeat('Qw3rTy', 10)}`;
const githubTokens = ['ghp_', 'gho_', 'ghs_'].map((prefix) => `${prefix}${repeat('a1B2c3', 6)}`);
const githubPat = `github_pat_${repeat('11ABCDEFG0', 3)}_${repeat('xYz', 10)}`;
const awsKeyId = `AKIA${repeat('ABCD2345', 2)}`;
const awsSecret = repeat('wJalrXUtnFEMI/K7MDENG+bPxRfiCY', 2).slice(0, 40);
const gcpApiKey = `AIza${repeat('SyB-1x_Q', 5)}`.slice(0, 39);
const slackToken = `xoxb-${repeat('1234567890', 2)}-${repeat('abcDEF', 4)}`;
const stripeLive = `sk_live_${repeat('51HxYz', 5)}`;
const stripeRestricted = `rk_live_${repeat('51HxYz', 5)}`;
const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${repeat('dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk', 1)}`;
const pemBody = repeat('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n', 4);
const pem = `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}-----END RSA PRIVATE KEY-----`;

describe('createRedactor: common credential shapes', () => {
  /** [name, text, the secret inside it, expected kind] */
  const cases: readonly [string, string, string, string][] = [
    ['OpenAI key', `key is ${openaiKey} ok`, openaiKey, 'openai-key'],
    ['OpenAI project key', `OPENAI=${openaiProjectKey}`, openaiProjectKey, 'openai-key'],
    ['Anthropic key', `use ${anthropicKey}`, anthropicKey, 'anthropic-key'],
    ...githubTokens.map((token): [string, string, string, string] => [
      `GitHub ${token.slice(0, 4)}`,
      `token ${token}`,
      token,
      'github-token',
    ]),
    ['GitHub fine-grained PAT', `pat ${githubPat}`, githubPat, 'github-token'],
    ['AWS access key id', `id=${awsKeyId};`, awsKeyId, 'aws-access-key-id'],
    ['AWS secret key assignment', `aws_secret_access_key = ${awsSecret}`, awsSecret, 'aws-secret-key'],
    ['AWS secret key in YAML', `aws_secret_access_key: "${awsSecret}"`, awsSecret, 'aws-secret-key'],
    ['GCP API key', `maps ${gcpApiKey} here`, gcpApiKey, 'gcp-api-key'],
    ['Slack token', `slack ${slackToken}`, slackToken, 'slack-token'],
    ['Stripe live key', `stripe ${stripeLive}`, stripeLive, 'stripe-key'],
    ['Stripe restricted key', `stripe ${stripeRestricted}`, stripeRestricted, 'stripe-key'],
    ['JWT', `Authorization: Bearer ${jwt}`, jwt, 'jwt'],
    ['PEM private key', `key:\n${pem}\ndone`, pemBody, 'private-key'],
    [
      'PEM private key cut before its end line',
      `key:\n-----BEGIN PRIVATE KEY-----\n${pemBody}`,
      pemBody,
      'private-key',
    ],
  ];

  it.each(cases)('removes a %s', (_name, text, secret, kind) => {
    const result = redact(text);
    expect(result).toContain(`[REDACTED:${kind}]`);
    expect(result).not.toContain(secret);
    expect(result).not.toContain(secret.slice(0, 16));
  });

  it('removes a GCP service-account private_key field and keeps the rest of the JSON', () => {
    const account = JSON.stringify({
      type: 'service_account',
      private_key_id: 'abc',
      private_key: `${pem}\n`,
      client_email: 'bot@x.iam',
    });
    const result = redact(account);
    expect(result).not.toContain('MIIE');
    expect(JSON.parse(result)).toMatchObject({ type: 'service_account', client_email: 'bot@x.iam' });
  });

  it('removes the values of .env-style secret lines but keeps their names', () => {
    const env = [
      'API_KEY=abc123def',
      'export GITHUB_TOKEN="quoted value"',
      'DB_PASSWORD=hunter2!',
      'CLIENT_SECRET=xyz',
      'PORT=8080',
    ].join('\n');
    expect(redact(env)).toBe(
      [
        'API_KEY=[REDACTED:secret-assignment]',
        'export GITHUB_TOKEN=[REDACTED:secret-assignment]',
        'DB_PASSWORD=[REDACTED:secret-assignment]',
        'CLIENT_SECRET=[REDACTED:secret-assignment]',
        'PORT=8080',
      ].join('\n'),
    );
  });

  it('keeps variable references and names that merely contain a secret word', () => {
    const text =
      // An empty assignment at the end of a line keeps the next line's word (`PASSWORD= word` on one line is `.env` for "word").
      'TOKEN=$GITHUB_TOKEN tokenizer=o200k inputTokens=12 PASSWORD=\nsecret_santa_list password=*** x=[REDACTED:secret]';
    expect(redact(text)).toBe(text);
  });

  it('removes the shapes of issue 30 and keeps what names them', () => {
    expect(redact('PGPASSWORD=hunter2hunter2 REDIS_URL=redis://:s3cretpass@cache:6379')).toBe(
      'PGPASSWORD=[REDACTED:secret-assignment] REDIS_URL=redis://:[REDACTED:url-password]@cache:6379',
    );
    expect(redact('Authorization: Basic YWRtaW46aHVudGVyMmh1bnRlcg==')).toBe(
      'Authorization: Basic [REDACTED:basic-auth]',
    );
    expect(redact('Basic authentication is off')).toBe('Basic authentication is off');
    expect(redact('deployctl --token abcDEF123456ghiJKL --region eu')).toBe(
      'deployctl --token [REDACTED:secret-flag] --region eu',
    );
    expect(redact('deployctl --token-limit 4096 --verbose yes')).toBe('deployctl --token-limit 4096 --verbose yes');
    expect(redact('curl -u admin:pa55word https://x')).toBe('curl -u admin:[REDACTED:user-password-flag] https://x');
    expect(redact('docker run -u 1000:1000 image')).toBe('docker run -u 1000:1000 image');
    expect(redact('DB_PASS= hunter2hunter2')).toBe('DB_PASS= [REDACTED:secret-assignment]');
    expect(redact('<password>hunter2hunter2</password><user>bob</user>')).toBe(
      '<password>[REDACTED:secret-element]</password><user>bob</user>',
    );
    expect(redact('PASSWORD:hunter2hunter2 and std::string http://x')).toBe(
      'PASSWORD:[REDACTED:secret-assignment] and std::string http://x',
    );
  });

  it('removes the password from a URL and keeps user and host', () => {
    expect(redact('clone https://alice:s3cr3tpass@git.example.com/repo.git')).toBe(
      'clone https://alice:[REDACTED:url-password]@git.example.com/repo.git',
    );
  });

  it('leaves ordinary text, code and hashes alone', () => {
    const text =
      'const sk = "sk-short"; sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 skip-this-step';
    expect(redact(text)).toBe(text);
  });
});

describe('createRedactor: configured secrets', () => {
  it('removes every occurrence of a configured value, longest first', () => {
    const { redact: redactConfigured } = createRedactor({
      secrets: ['my-secret-value', 'my-secret-value-extended', 'abc'],
    });
    expect(redactConfigured('a my-secret-value-extended b my-secret-value c abc')).toBe(
      'a [REDACTED:secret] b [REDACTED:secret] c abc',
    );
  });

  it('treats configured values literally, even with regular-expression characters', () => {
    const { redact: redactConfigured } = createRedactor({ secrets: ['p.a$s(w)o*rd'] });
    expect(redactConfigured('x p.a$s(w)o*rd y pXa$s(w)o*rd')).toBe('x [REDACTED:secret] y pXa$s(w)o*rd');
  });
});

describe('createRedactor: redactJson', () => {
  it('redacts nested strings and secret-named fields without changing keys, numbers or the input', () => {
    const input = {
      event: { type: 'tool.call.started', summary: `curl -H "x: ${openaiKey}"` },
      config: { password: 'hunter2', apiKey: 'plain', inputTokens: 12, tokenizer: 'o200k' },
      list: [anthropicKey, 3, null, true],
    } as const;
    const before = structuredClone(input);
    const result = redactJson(input);
    expect(input).toEqual(before);
    expect(result).toEqual({
      event: { type: 'tool.call.started', summary: 'curl -H "x: [REDACTED:openai-key]"' },
      config: {
        password: '[REDACTED:secret-field]',
        apiKey: '[REDACTED:secret-field]',
        inputTokens: 12,
        tokenizer: 'o200k',
      },
      list: ['[REDACTED:anthropic-key]', 3, null, true],
    });
  });
});

describe('createRedactor: properties', () => {
  const secretShapes = fc.constantFrom(
    openaiKey,
    anthropicKey,
    githubPat,
    awsKeyId,
    slackToken,
    stripeLive,
    jwt,
    ...githubTokens,
  );

  it('never lets a known secret through, whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.string(), secretShapes, fc.string(), (before, secret, after) => {
        expect(redact(`${before} ${secret} ${after}`)).not.toContain(secret);
      }),
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.string(), secretShapes, fc.string(), (before, secret, after) => {
        const once = redact(`${before}${secret}\nAPI_KEY=${after}`);
        expect(redact(once)).toBe(once);
      }),
    );
  });
});
