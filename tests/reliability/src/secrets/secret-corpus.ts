import { seededRandom } from '../support/seeded-random.js';

/*
 * Secret shapes for the leak suite, generated from a seed so that no credential-looking literal is
 * written in the repository. Each entry has the text placed in a session (`text`) and the part that
 * must never reach anything Forge stores or prints (`secret`); `fragments` are pieces long enough
 * that finding one means a partial leak.
 */

export interface SecretSample {
  readonly kind: string;
  /** How it appears: a bare token, a `.env` line, a URL, a JSON field, a PEM block. */
  readonly text: string;
  /** The sensitive value inside `text`. */
  readonly secret: string;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE64 = `${ALPHANUMERIC}+/`;
const URL_SAFE = `${ALPHANUMERIC}_-`;
const HEX = '0123456789abcdef';
/** Base64 without digits: a key line that happens to hold few of them. */
const LETTERS_SYMBOLS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/';

/** The configured secret: an arbitrary value only redaction by value can catch. */
export const CONFIGURED_SECRET_VARIABLE = 'CORP_DEPLOY_CODE';
/** A variable whose name says it is secret: its value is redacted without being configured. */
export const ENVIRONMENT_SECRET_VARIABLE = 'INTERNAL_SERVICE_TOKEN';

export function secretCorpus(seed: number): {
  readonly samples: readonly SecretSample[];
  readonly configuredSecret: string;
  readonly environmentSecret: string;
  /** A private key file (PEM, BEGIN to END) for ranged reads and searches that show its body without the BEGIN line. */
  readonly keyFile: { readonly text: string; readonly bodyLines: readonly string[] };
} {
  const next = seededRandom(seed);
  const pick = (alphabet: string, length: number) =>
    Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  const base64Url = (value: string) => Buffer.from(value).toString('base64url');
  const pemBody = () => Array.from({ length: 6 }, () => pick(BASE64, 64)).join('\n');
  const pem = (label: string) => {
    const body = pemBody();
    return { text: `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`, secret: body };
  };
  const configuredSecret = `corp.${pick(HEX, 8)}.${pick(ALPHANUMERIC, 14)}`;
  const environmentSecret = `svc~${pick(ALPHANUMERIC, 18)}`;
  const token = (kind: string, value: string): SecretSample => ({ kind, text: value, secret: value });
  const line = (kind: string, prefix: string, value: string, suffix = ''): SecretSample => ({
    kind,
    text: `${prefix}${value}${suffix}`,
    secret: value,
  });

  const rsa = pem('RSA PRIVATE KEY');
  // What a ranged read of a key file shows: body lines and the END line, no BEGIN line.
  const withoutBegin = pem('PRIVATE KEY');
  const pemWithoutBegin = { text: withoutBegin.text.split('\n').slice(1).join('\n'), secret: withoutBegin.secret };
  const opensshWithoutBegin = Array.from({ length: 4 }, () => pick(BASE64, 70)).join('\n');
  const keyFileBody = [...Array.from({ length: 6 }, () => pick(BASE64, 64)), `${pick(BASE64, 22)}==`];
  const keyFile = {
    text: `-----BEGIN PRIVATE KEY-----\n${keyFileBody.join('\n')}\n-----END PRIVATE KEY-----\n`,
    bodyLines: keyFileBody,
  };
  const openssh = pem('OPENSSH PRIVATE KEY');
  const ec = pem('EC PRIVATE KEY');
  const pkcs8 = pem('PRIVATE KEY');
  const gcpKeyBody = pick(BASE64, 120);
  const jwt = `${base64Url('{"alg":"HS256","typ":"JWT"}')}.${base64Url(`{"sub":"${pick(HEX, 12)}","admin":true}`)}.${pick(URL_SAFE, 43)}`;

  const samples: SecretSample[] = [
    token('openai-legacy', `sk-${pick(ALPHANUMERIC, 48)}`),
    token('openai-project', `sk-proj-${pick(URL_SAFE, 64)}`),
    token('openai-service-account', `sk-svcacct-${pick(URL_SAFE, 56)}`),
    token('openai-admin', `sk-admin-${pick(URL_SAFE, 56)}`),
    token('anthropic', `sk-ant-api03-${pick(URL_SAFE, 93)}AA`),
    token('deepseek', `sk-${pick(HEX, 32)}`),
    token('github-classic', `ghp_${pick(ALPHANUMERIC, 36)}`),
    token('github-oauth', `gho_${pick(ALPHANUMERIC, 36)}`),
    token('github-user-to-server', `ghu_${pick(ALPHANUMERIC, 36)}`),
    token('github-server-to-server', `ghs_${pick(ALPHANUMERIC, 36)}`),
    token('github-refresh', `ghr_${pick(ALPHANUMERIC, 36)}`),
    token('github-fine-grained', `github_pat_${pick(ALPHANUMERIC, 22)}_${pick(ALPHANUMERIC, 59)}`),
    token('aws-access-key-id', `AKIA${pick(UPPER_DIGITS, 16)}`),
    token('aws-temporary-key-id', `ASIA${pick(UPPER_DIGITS, 16)}`),
    line('aws-secret-key', 'aws_secret_access_key = ', pick(BASE64, 40)),
    token('gcp-api-key', `AIza${pick(URL_SAFE, 35)}`),
    line(
      'gcp-service-account',
      '{"type": "service_account", "private_key": "',
      `-----BEGIN PRIVATE KEY-----\\n${gcpKeyBody}\\n-----END PRIVATE KEY-----\\n`,
      '"}',
    ),
    token('slack-bot', `xoxb-${pick('0123456789', 12)}-${pick('0123456789', 13)}-${pick(ALPHANUMERIC, 24)}`),
    token(
      'slack-user',
      `xoxp-${pick('0123456789', 12)}-${pick('0123456789', 12)}-${pick('0123456789', 13)}-${pick(HEX, 32)}`,
    ),
    token('slack-app', `xapp-1-A${pick(UPPER_DIGITS, 10)}-${pick('0123456789', 13)}-${pick(HEX, 64)}`),
    line(
      'slack-webhook',
      'https://hooks.slack.com/services/',
      `T${pick(UPPER_DIGITS, 8)}/B${pick(UPPER_DIGITS, 10)}/${pick(ALPHANUMERIC, 24)}`,
    ),
    token('stripe-live-secret', `sk_live_${pick(ALPHANUMERIC, 99)}`),
    token('stripe-restricted', `rk_live_${pick(ALPHANUMERIC, 99)}`),
    token('stripe-test-secret', `sk_test_${pick(ALPHANUMERIC, 99)}`),
    token('jwt', jwt),
    { kind: 'pem-rsa', ...rsa },
    { kind: 'pem-openssh', ...openssh },
    { kind: 'pem-ec', ...ec },
    { kind: 'pem-pkcs8', ...pkcs8 },
    line('env-password', 'DATABASE_PASSWORD=', pick(ALPHANUMERIC, 20)),
    line('env-export-api-key', 'export PAYMENTS_API_KEY="', pick(ALPHANUMERIC, 32), '"'),
    line('env-token-single-quoted', "SECRET_TOKEN='", pick(URL_SAFE, 28), "'"),
    line('env-client-secret', 'OAUTH_CLIENT_SECRET: ', pick(ALPHANUMERIC, 30)),
    line('url-password-postgres', 'postgres://app:', pick(ALPHANUMERIC, 18), '@db.internal:5432/orders'),
    line('url-password-https', 'https://deploy:', pick(ALPHANUMERIC, 22), '@git.example.com/repo.git'),
    line('json-password-field', '{"user": "admin", "password": "', pick(ALPHANUMERIC, 18), '"}'),
    line('bearer-header', 'Authorization: Bearer ', pick(URL_SAFE, 40)),
    token('npm-token', `npm_${pick(ALPHANUMERIC, 36)}`),
    token('huggingface-token', `hf_${pick(ALPHANUMERIC, 34)}`),
    // Issue 17: shapes found stored in clear by an outside tester, in every case style.
    line(
      'aws-cli-secret-access-key',
      '{"Credentials": {"SecretAccessKey": "',
      pick(BASE64, 40),
      '", "Expiration": "2030-01-01T00:00:00Z"}}',
    ),
    line('aws-cli-session-token', '{"SessionToken": "', `IQoJb3JpZ2luX2Vj${pick(BASE64, 120)}`, '"}'),
    line('json-camel-client-secret', '{"clientId": "app-7", "clientSecret": "', pick(URL_SAFE, 32), '"}'),
    line('json-camel-api-key', '{"apiKey": "', pick(ALPHANUMERIC, 32), '", "region": "eu"}'),
    line('json-escaped-api-key', '{"body": "{\\"apiKey\\": \\"', pick(ALPHANUMERIC, 28), '\\"}"}'),
    line('python-dict-password', "{'user': 'admin', 'password': '", pick(ALPHANUMERIC, 18), "'}"),
    line('env-db-pass', 'DB_PASS=', pick(ALPHANUMERIC, 16)),
    line('env-kebab-password', 'db-password=', pick(ALPHANUMERIC, 16)),
    line('yaml-pascal-password', 'DbPassword: ', pick(ALPHANUMERIC, 16)),
    line('ini-dotted-password', 'db.password = ', pick(ALPHANUMERIC, 16)),
    line('yaml-camel-session-token', 'sessionToken: ', pick(URL_SAFE, 40)),
    line('yaml-camel-private-key', 'privateKey: "', pick(BASE64, 44), '"'),
    line('yaml-camel-access-key', 'accessKey: ', pick(ALPHANUMERIC, 24)),
    line('env-mysql-pwd', 'MYSQL_PWD=', pick(ALPHANUMERIC, 14)),
    line('cli-password-flag', 'mysql --user=app --password=', pick(ALPHANUMERIC, 18), ' orders'),
    line('header-x-api-key', 'x-api-key: ', pick(ALPHANUMERIC, 32)),
    line(
      'docker-auth',
      '{"auths": {"registry.example.com": {"auth": "',
      Buffer.from(`deploy:${pick(ALPHANUMERIC, 20)}`).toString('base64'),
      '"}}}',
    ),
    line('rails-secret-key-base', 'SECRET_KEY_BASE=', pick(HEX, 64)),
    { kind: 'pem-body-without-begin', text: pemWithoutBegin.text, secret: pemWithoutBegin.secret },
    { kind: 'openssh-body-without-begin', text: opensshWithoutBegin, secret: opensshWithoutBegin },
    line('pem-search-hit', 'deploy/tls.key:3: ', pick(BASE64, 64)),
    { kind: 'key-file', text: keyFile.text, secret: keyFileBody.join('\n') },
    // Issue 30: shapes an outside tester found stored in clear.
    line('env-pgpassword', 'PGPASSWORD=', pick(ALPHANUMERIC, 18)),
    line('url-empty-user-redis', 'REDIS_URL=redis://:', pick(ALPHANUMERIC, 20), '@cache.internal:6379/0'),
    line('url-password-in-prose', 'the broker is at amqp://guest:', pick(ALPHANUMERIC, 16), '@mq.internal:5672 today'),
    line(
      'authorization-basic',
      'Authorization: Basic ',
      Buffer.from(`admin:${pick(ALPHANUMERIC, 18)}`).toString('base64'),
    ),
    line('cli-token-flag-space', 'deployctl push --token ', pick(URL_SAFE, 32), ' --region eu'),
    line('curl-user-password', 'curl -u admin:', pick(ALPHANUMERIC, 16), ' https://api.internal/v1/users'),
    line('env-space-after-equals', 'DB_PASS= ', pick(ALPHANUMERIC, 16)),
    line('xml-password-element', '<password>', pick(ALPHANUMERIC, 18), '</password>'),
    line('colon-password-no-space', 'PASSWORD:', pick(ALPHANUMERIC, 16)),
    line('pem-search-hit-slash', 'notes/backup.txt:5: /', pick(BASE64, 63)),
    line(
      'pem-search-hit-few-digits',
      'notes/backup.txt:6: ',
      `${pick(LETTERS_SYMBOLS, 31)}7${pick(LETTERS_SYMBOLS, 31)}4`,
    ),
    line('pem-search-hit-last-line', 'notes/backup.txt:9: ', `${pick(BASE64, 26)}==`),
    line('configured-secret', `${CONFIGURED_SECRET_VARIABLE}=`, configuredSecret),
    line('environment-secret-bare', 'the service answered with ', environmentSecret, ' just now'),
  ];
  return { samples, configuredSecret, environmentSecret, keyFile };
}

/** Pieces of `secret` long enough that finding one in an artifact means it leaked (whole or in part). */
export function secretFragments(secret: string): string[] {
  const lines = secret.split(/\\n|\n/).filter((line) => line.length >= 12);
  const fragments = new Set<string>([secret]);
  for (const line of lines) {
    fragments.add(line);
    if (line.length > 24) fragments.add(line.slice(-16));
    if (line.length > 24) fragments.add(line.slice(0, 16));
  }
  return [...fragments];
}

/** Which samples leak into `text`, with the first fragment found. */
export function findLeaks(
  samples: readonly SecretSample[],
  text: string,
): { readonly kind: string; readonly fragment: string }[] {
  const leaks: { kind: string; fragment: string }[] = [];
  for (const sample of samples) {
    const fragment = secretFragments(sample.secret).find(
      (piece) => text.includes(piece) || text.includes(JSON.stringify(piece).slice(1, -1)),
    );
    if (fragment !== undefined) leaks.push({ kind: sample.kind, fragment });
  }
  return leaks;
}
