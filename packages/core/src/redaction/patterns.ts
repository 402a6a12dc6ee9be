import { isSecretValue, secretNameStrength } from './secret-names.js';

/*
 * Shapes of well-known credentials. Each rule names the kind that appears in the replacement
 * (`[REDACTED:kind]`). Order matters: a more specific shape runs before a broader one that would
 * also match it (Anthropic keys before OpenAI's `sk-`, PEM blocks before anything inside them).
 */

/** One credential shape: matches are replaced by `[REDACTED:<kind>]`, or by what `replace` returns. */
export interface RedactionRule {
  readonly kind: string;
  /** Must have the `g` flag. */
  readonly pattern: RegExp;
  /** Builds the replacement from the match; the default replaces the whole match. */
  readonly replace?: (marker: string, match: string, ...groups: string[]) => string;
}

const BASE64 = '[A-Za-z0-9+/]';
/** Not inside a longer base64, base64url or hex run (nor an SRI hash such as `sha384-…`). */
const NO_BASE64_BEFORE = '(?<![A-Za-z0-9+/=_-])';
const NO_BASE64_AFTER = '(?![A-Za-z0-9+/=_-])';
/** One whole line of a PEM body (64 characters) or of an OpenSSH key (70). */
const BODY_LINE = `(?:${BASE64}{70}|${BASE64}{64})`;

/** Random base64 mixes cases and digits; a hex digest or a word does not. */
function looksRandom(text: string, least: number): boolean {
  let upper = 0;
  let lower = 0;
  let digits = 0;
  for (const character of text) {
    if (character >= 'A' && character <= 'Z') upper += 1;
    else if (character >= 'a' && character <= 'z') lower += 1;
    else if (character >= '0' && character <= '9') digits += 1;
  }
  return upper >= least && lower >= least && digits >= least;
}

/**
 * A key body line as a search hit shows it: mixed case and at least three digits or base64
 * symbols (`+`, `/`). A path, a word or a hex digest does not look like this.
 */
function looksLikeKeyLine(text: string): boolean {
  let upper = 0;
  let lower = 0;
  let other = 0;
  for (const character of text) {
    if (character >= 'A' && character <= 'Z') upper += 1;
    else if (character >= 'a' && character <= 'z') lower += 1;
    else if (character !== '=') other += 1;
  }
  return upper >= 4 && lower >= 4 && other >= 3;
}

/** Whether `encoded` is base64 of `user:password` (what HTTP Basic authentication sends). */
function isBasicCredential(encoded: string): boolean {
  try {
    const decoded = atob(encoded);
    const colon = decoded.indexOf(':');
    return colon > 0 && colon < decoded.length - 1 && /^[\x20-\x7e]+$/.test(decoded);
  } catch {
    return false;
  }
}

/** A file whose content is a private key by its name: `*.pem`, `*.key`, `id_ed25519`, `private-key.txt`. */
export function isKeyFilePath(file: string): boolean {
  const base = file.split('/').at(-1) ?? file;
  return (
    /\.(?:pem|key|p8|pk8|ppk)$/i.test(base) ||
    /^id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?$/.test(base) ||
    /private[-_.]?key/i.test(base)
  );
}

/** Every base64 run of 16 characters or more: applied to what Forge read from a key file, where any of it is the key. */
export const KEY_FILE_CONTENT = new RegExp(`${NO_BASE64_BEFORE}${BASE64}{16,}={0,2}${NO_BASE64_AFTER}`, 'g');

export const redactionRules: readonly RedactionRule[] = [
  {
    kind: 'private-key',
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/g,
  },
  {
    kind: 'gcp-private-key',
    pattern: /("private_key"\s*:\s*")((?:[^"\\]|\\.)*)(")/g,
    replace: (marker, _match, open = '', value = '', close = '') =>
      value.length === 0 || value.startsWith('[REDACTED') ? `${open}${value}${close}` : `${open}${marker}${close}`,
  },
  {
    // A PEM or OpenSSH key body seen without its BEGIN line (a ranged read): two or more whole
    // 64- or 70-character lines, the short last line when it is padded or ends the line, and the END line.
    kind: 'private-key',
    pattern: new RegExp(
      `${NO_BASE64_BEFORE}${BODY_LINE}(?:\\s+${BODY_LINE})+(?:\\s+(?:${BASE64}{1,69}={1,2}|${BASE64}{1,69}(?=[ \\t]*(?:\\r?\\n|$))))?${NO_BASE64_AFTER}` +
        '(?:\\s*-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?',
      'g',
    ),
    replace: (marker, match) => (looksRandom(match, 8) ? marker : match),
  },
  {
    // A search hit in a key file: `deploy/server.key:12: MIIEvQIBADANBgkqhkiG…`.
    kind: 'private-key',
    pattern: new RegExp(`(?<![\\w./-])([\\w./-]+)(:\\d+: )(${BASE64}{16,}={0,2})${NO_BASE64_AFTER}`, 'g'),
    replace: (marker, match, file = '', separator = '') =>
      isKeyFilePath(file) ? `${file}${separator}${marker}` : match,
  },
  {
    // A search hit whose whole text is a key body line, in a file not named like a key: a whole
    // 64- or 70-character line, or the short last line (padded, or long enough), of random base64.
    kind: 'private-key',
    pattern: new RegExp(
      `(?<![\\w./-])([\\w./-]+:\\d+: )(${BODY_LINE}|${BASE64}{16,69}={1,2}|${BASE64}{24,69})(?=[ \\t]*(?:\\r?\\n|$))`,
      'gm',
    ),
    replace: (marker, match, location = '', body = '') => (looksLikeKeyLine(body) ? `${location}${marker}` : match),
  },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  {
    kind: 'aws-secret-key',
    pattern: /\b(aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})\b/gi,
    replace: (marker, _match, prefix = '') => `${prefix}${marker}`,
  },
  { kind: 'gcp-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: 'slack-token', pattern: /\b(?:xox[baprs]|xapp)-[A-Za-z0-9-]{10,}/g },
  {
    kind: 'slack-webhook',
    pattern: /\b(https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9_/-]{8,}/g,
    replace: (marker, _match, prefix = '') => `${prefix}${marker}`,
  },
  { kind: 'npm-token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'huggingface-token', pattern: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { kind: 'stripe-key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g },
  {
    kind: 'bearer-token',
    pattern: /\b(Bearer[ \t]+)([A-Za-z0-9._~+/-]{16,}=*)/gi,
    replace: (marker, _match, prefix = '') => `${prefix}${marker}`,
  },
  {
    // `Authorization: Basic dXNlcjpwYXNz`: base64 of `user:password`.
    kind: 'basic-auth',
    pattern: /\b(Basic[ \t]+)([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/gi,
    replace: (marker, match, prefix = '', encoded = '') => (isBasicCredential(encoded) ? `${prefix}${marker}` : match),
  },
  {
    // `curl -u admin:password`, `--user admin:password`: the password after the user name.
    kind: 'user-password-flag',
    pattern: /(?<=(?:^|\s))(-u|--user)([ \t]+|=)(["']?)([^\s:"'@]{1,256}):([^\s"']{1,1024})\3/g,
    replace: (marker, match, ...groups) => {
      const [flag = '', space = '', quote = '', user = '', password = ''] = groups;
      return password === user || /^\d+$/.test(password) || password.startsWith('$') || password.startsWith('[REDACTED')
        ? match
        : `${flag}${space}${quote}${user}:${marker}${quote}`;
    },
  },
  {
    kind: 'url-password',
    // Bounded parts, and a start only where a scheme can begin: a long `a.b.c…` run stays linear.
    // The user may be empty (`redis://:password@host`).
    pattern: /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/[^\s/:@]{0,256}:)([^\s/@]{1,1024})(@)/gi,
    replace: (marker, _match, prefix = '', password = '', at = '') =>
      password.startsWith('$') || password.startsWith('[REDACTED') || /^\*+$/.test(password)
        ? `${prefix}${password}${at}`
        : `${prefix}${marker}${at}`,
  },
  {
    // `"clientSecret": "…"`, `'password': '…'`, `"token" => "…"`: JSON, Python and Ruby literals.
    kind: 'secret-field',
    pattern: /(["'])([A-Za-z_$][\w$.-]*)\1(\s*(?::|=>)\s*)(["'])((?:(?!\4)[^\\\n]|\\.)*)\4/g,
    replace: (marker, match, ...groups) => {
      const [quote = '', name = '', colon = '', open = '', value = ''] = groups;
      return isSecretValue(name, value, { quoted: true })
        ? `${quote}${name}${quote}${colon}${open}${marker}${open}`
        : match;
    },
  },
  {
    // The same inside a JSON string that holds JSON: `{\"apiKey\": \"…\"}`.
    kind: 'secret-field',
    pattern: /\\"([A-Za-z_$][\w$.-]*)\\"(\s*:\s*)\\"((?:[^"\\]|\\[^"])*)\\"/g,
    replace: (marker, match, name = '', colon = '', value = '') =>
      isSecretValue(name, value, { quoted: true }) ? `\\"${name}\\"${colon}\\"${marker}\\"` : match,
  },
  {
    // `.env`, shell and INI assignments and flags: `DB_PASS=…`, `export TOKEN="…"`, `--password=…`, `password = …`.
    kind: 'secret-assignment',
    pattern:
      /(?:(?<=(?:^|\s)--?)|(?<![\w.-]))([A-Za-z_][\w.-]*)([ \t]+:?=(?![=>~])[ \t]*|:?=(?![=>~])[ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"'\n,;&]+)/g,
    replace: (marker, match, name = '', equals = '', value = '') =>
      isSecretValue(name, value, { quoted: /^["']/.test(value) }) ? `${name}${equals}${marker}` : match,
  },
  {
    // A flag and its value as two words: `--token abc…`, `-password abc…`.
    kind: 'secret-flag',
    pattern: /(?<=(?:^|\s))(--?[A-Za-z][\w-]*)([ \t]+)(?!-)("[^"\n]*"|'[^'\n]*'|[^\s"'\n,;&|]+)/g,
    replace: (marker, match, flag = '', space = '', value = '') =>
      isSecretValue(flag.replace(/^-+/, ''), value, { quoted: /^["']/.test(value) })
        ? `${flag}${space}${marker}`
        : match,
  },
  {
    // XML and HTML elements: `<password>…</password>`, `<apiKey>…</apiKey>`.
    kind: 'secret-element',
    pattern: /<([A-Za-z_][\w.-]{0,63})>([^<\n]{1,1024})<\/\1>/g,
    replace: (marker, match, name = '', value = '') =>
      isSecretValue(name, value, { quoted: true }) ? `<${name}>${marker}</${name}>` : match,
  },
  {
    // `PASSWORD:value`, no space after the colon: only for names that always hold a secret.
    kind: 'secret-assignment',
    pattern: /(?<![\w.:/-])([A-Za-z_][\w.-]*)(:)(?![:/\s])("[^"\n]*"|'[^'\n]*'|[^\s"'\n,;&]+)/g,
    replace: (marker, match, name = '', colon = '', value = '') =>
      secretNameStrength(name) === 'strong' && isSecretValue(name, value, { quoted: /^["']/.test(value) })
        ? `${name}${colon}${marker}`
        : match,
  },
  {
    // YAML and object literals: `clientSecret: …`, `DB_PASS: "…"`.
    kind: 'secret-assignment',
    pattern: /(?<![\w.-])([A-Za-z_][\w.-]*)([ \t]*:[ \t]+)("[^"\n]*"|'[^'\n]*'|[^\s"'\n,;&]+)/g,
    replace: (marker, match, name = '', colon = '', value = '') =>
      isSecretValue(name, value, { quoted: /^["']/.test(value) }) ? `${name}${colon}${marker}` : match,
  },
  {
    // A lone key line: one whole 64- or 70-character line of random base64, as a search or a one-line read shows it.
    kind: 'private-key',
    pattern: new RegExp(`${NO_BASE64_BEFORE}(${BODY_LINE})${NO_BASE64_AFTER}`, 'g'),
    replace: (marker, match) => (!match.startsWith('/') && looksRandom(match, 4) ? marker : match),
  },
];
