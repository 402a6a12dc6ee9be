/*
 * Which key names hold secrets, whatever their case style: `DB_PASS`, `db-pass`, `dbPass`,
 * `DbPass`, `db.pass`. A name is split into words and judged by its last one (its head noun):
 * `clientSecret` and `SecretAccessKey` name secrets, `PASSWORD_MIN_LENGTH`, `tokenizer`,
 * `inputTokens` and `tokenEstimator` do not. Suffixes that do not change what the value is
 * (`_BASE64`, `_2`, `_PROD`) are looked through.
 */

/** How sure a name makes us that its value is a secret; a weaker name needs a more secret-looking value. */
export type SecretNameStrength = 'strong' | 'weak' | 'vague';

/** Head nouns whose values are secrets whatever they look like. */
const STRONG_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'secret',
  'apikey',
  'accesskey',
  'privatekey',
  'secretkey',
  'clientsecret',
]);
/** Strong words that still name a secret as the end of one run-together word: `PGPASSWORD`, `dbsecret`. */
const STRONG_SUFFIXES = ['password', 'passwd', 'passphrase', 'secret'];
/** Head nouns of secrets that also name counts or flags (`pass: 12`, `token: 4096`). */
const WEAK_WORDS = new Set(['token', 'pass']);
/** Head nouns that also name modes and enums (`credentials: include`, `auth: none`). */
const VAGUE_WORDS = new Set(['credential', 'credentials', 'auth']);
/** Abbreviations of password that are a secret only with a qualifier: bare `PWD` is the shell's working directory. */
const QUALIFIED_WORDS = new Set(['pwd', 'pw']);
/** `<qualifier>_key` names a secret key; a bare `key` (or `primary_key`, `sort_key`) does not. */
const KEY_QUALIFIERS = new Set([
  'api',
  'access',
  'private',
  'secret',
  'session',
  'signing',
  'master',
  'encryption',
  'license',
  'auth',
  'app',
  'subscription',
  'service',
  'deploy',
  'ssh',
  'client',
  'consumer',
  'shared',
  'account',
  'storage',
  'admin',
  'webhook',
]);
/** Trailing words that leave the value what the rest of the name says (`PRIVATE_KEY_BASE64`, `SECRET_KEY_BASE`, `TOKEN_2`). */
const TRANSPARENT_SUFFIXES = new Set([
  'value',
  'raw',
  'plain',
  'encoded',
  'b64',
  'base64',
  'base',
  'string',
  'str',
  'data',
  'hex',
  'old',
  'new',
  'current',
  'next',
  'previous',
  'prev',
  'prod',
  'production',
  'dev',
  'staging',
  'test',
  'primary',
  'secondary',
  'backup',
]);

/** `SecretAccessKey` → `secret access key`, `OPENAI_API_KEY` → `openai api key`, lower-cased. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 0)
    .map((word) => word.toLowerCase());
}

/** Every secret head noun contains one of these: a name without any is judged without splitting it. */
const ANY_SECRET_WORD = /pass|pw|secret|token|key|credential|auth/i;

/** How strongly `name` says its value is a secret, or undefined when it does not. */
export function secretNameStrength(name: string): SecretNameStrength | undefined {
  if (!ANY_SECRET_WORD.test(name)) return undefined;
  const words = nameWords(name);
  while (
    words.length > 1 &&
    (TRANSPARENT_SUFFIXES.has(words.at(-1) as string) || /^(?:\d+|[a-z])$/.test(words.at(-1) as string))
  )
    words.pop();
  const head = words.at(-1);
  if (head === undefined) return undefined;
  const qualifier = words.at(-2);
  if (STRONG_WORDS.has(head) || STRONG_SUFFIXES.some((word) => head.length > word.length && head.endsWith(word)))
    return 'strong';
  if (head === 'key' && qualifier !== undefined && KEY_QUALIFIERS.has(qualifier)) return 'strong';
  if (WEAK_WORDS.has(head)) return 'weak';
  if (QUALIFIED_WORDS.has(head) && qualifier !== undefined) return 'weak';
  if (VAGUE_WORDS.has(head)) return 'vague';
  return undefined;
}

/**
 * Whether a variable or key called `name` holds a secret by Forge's rules, whatever its value:
 * the names `redactJson` treats as secret fields (`OPENAI_API_KEY`, `DB_PASSWORD`, `GITHUB_TOKEN`,
 * `SMTP_AUTH`). The command sandbox keeps every such variable out of a command's environment.
 */
export function isSecretName(name: string): boolean {
  return secretNameStrength(name) !== undefined;
}

/** Values that stand for no secret: empty, a variable or command substitution, a template slot (`<your token>`, `{{ x }}`), a mask, or already redacted. */
function isPlaceholder(bare: string): boolean {
  return (
    bare.trim().length === 0 ||
    bare.startsWith('$') ||
    bare.startsWith('[REDACTED') ||
    /^\*+$/.test(bare) ||
    bare.startsWith('<') ||
    /^\{\{.*\}\}$/.test(bare) ||
    /^%\(?\w+\)?s?%?$/.test(bare)
  );
}

const NOT_SECRET_WORDS = new Set(['true', 'false', 'yes', 'no', 'on', 'off', 'null', 'nil', 'none', 'undefined']);
/** Bare words that follow `password =` or `token:` in code: keywords and type names, not values. */
const CODE_WORDS = new Set([
  'await',
  'new',
  'this',
  'self',
  'function',
  'typeof',
  'string',
  'number',
  'boolean',
  'bigint',
  'symbol',
  'object',
  'any',
  'unknown',
  'never',
  'void',
  'str',
  'int',
  'bool',
  'bytes',
  'float',
  'required',
  'optional',
]);

/** An unquoted value that is code rather than data: a call, an index, an object, a property path (`req.body.password`). */
function isCode(bare: string): boolean {
  return CODE_WORDS.has(bare) || /[()[\]{}]/.test(bare) || /^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$/.test(bare);
}

/**
 * Whether `value`, assigned to a key called `name`, is a secret to remove. `quoted` says whether
 * the value was written as a string literal (an unquoted one may be code: `password = getPassword()`).
 */
export function isSecretValue(name: string, value: string, options: { readonly quoted: boolean }): boolean {
  const strength = secretNameStrength(name);
  if (strength === undefined) return false;
  const bare = value.replace(/^["']|["']$/g, '');
  if (isPlaceholder(bare) || NOT_SECRET_WORDS.has(bare.toLowerCase())) return false;
  if (!options.quoted && isCode(bare)) return false;
  if (strength === 'strong') return true;
  if (/^-?\d+(?:\.\d+)?$/.test(bare)) return false;
  if (strength === 'weak') return true;
  return !/^[a-z]+(?:[-_][a-z]+)*$/.test(bare);
}
