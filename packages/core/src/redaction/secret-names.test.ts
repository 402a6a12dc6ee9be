import { describe, expect, it } from 'vitest';
import { isSecretValue, nameWords, secretNameStrength } from './secret-names.js';

describe('nameWords', () => {
  it.each([
    ['OPENAI_API_KEY', ['openai', 'api', 'key']],
    ['clientSecret', ['client', 'secret']],
    ['SecretAccessKey', ['secret', 'access', 'key']],
    ['APIKey', ['api', 'key']],
    ['x-api-key', ['x', 'api', 'key']],
    ['db.pass', ['db', 'pass']],
    ['_authToken', ['auth', 'token']],
  ])('splits %s in any case style', (name, words) => {
    expect(nameWords(name)).toEqual(words);
  });
});

describe('secretNameStrength', () => {
  it.each([
    'password',
    'DB_PASSWORD',
    'db-password',
    'dbPassword',
    'DbPassword',
    'db.password',
    'passwd',
    'PASSPHRASE',
    'secret',
    'clientSecret',
    'CLIENT_SECRET',
    'apiKey',
    'API_KEY',
    'apikey',
    'x-api-key',
    'accessKey',
    'SecretAccessKey',
    'aws_secret_access_key',
    'privateKey',
    'PRIVATE_KEY_BASE64',
    'SECRET_KEY_BASE',
    'sessionToken',
    'AWS_SESSION_TOKEN',
    'GITHUB_TOKEN',
    'token',
    'DB_PASS',
    'dbPass',
    'pass',
    'MYSQL_PWD',
    'db_pw',
    'credentials',
    'auth',
    'API_KEY_2',
  ])('%s names a secret', (name) => {
    expect(secretNameStrength(name)).toBeDefined();
  });

  it.each([
    'PWD',
    'OLDPWD',
    'pwd',
    'PASSWORD_MIN_LENGTH',
    'password_file',
    'tokenizer',
    'inputTokens',
    'max_tokens',
    'tokenEstimator',
    'token_type',
    'TOKEN_URL',
    'passenger',
    'bypass',
    'compass',
    'passthrough',
    'secretary',
    'secret_santa_list',
    'secrets',
    'key',
    'primary_key',
    'sortKey',
    'AccessKeyId',
    'private_key_id',
    'author',
    'oauth',
    'SSH_AUTH_SOCK',
    'PASSWORD_STORE_DIR',
    'keyboard',
  ])('%s does not', (name) => {
    expect(secretNameStrength(name)).toBeUndefined();
  });
});

describe('isSecretValue', () => {
  it('looks past placeholders, flags and code', () => {
    for (const value of [
      '',
      '$DB_PASSWORD',
      '${TOKEN}',
      '$(cat /run/secret)',
      '***',
      '[REDACTED:secret]',
      '<your-token>',
      '{{ .Values.token }}',
      'true',
      'null',
      'None',
    ])
      expect(isSecretValue('password', value, { quoted: false }), value).toBe(false);
    for (const value of ['getPassword()', 'req.body.password', 'process.env.TOKEN', 'tokens[0]', 'await', 'string'])
      expect(isSecretValue('token', value, { quoted: false }), value).toBe(false);
    expect(isSecretValue('password', 'getPassword()', { quoted: true })).toBe(true);
  });

  it('asks a weaker name for a more secret-looking value', () => {
    expect(isSecretValue('password', '123456', { quoted: false })).toBe(true);
    expect(isSecretValue('pass', '12', { quoted: false })).toBe(false);
    expect(isSecretValue('token', '4096', { quoted: false })).toBe(false);
    expect(isSecretValue('DB_PASS', 'hunter2', { quoted: false })).toBe(true);
    expect(isSecretValue('credentials', 'include', { quoted: true })).toBe(false);
    expect(isSecretValue('auth', 'dXNlcjpwYXNz', { quoted: true })).toBe(true);
  });
});
