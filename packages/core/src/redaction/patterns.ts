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

/**
 * Key names whose values are secrets: `GITHUB_TOKEN`, `db_password`, `client-secret`, `API_KEY`.
 * The word must stand alone inside the name, so `tokenizer` or `inputTokens` do not match.
 */
const SENSITIVE_NAME =
  /(?:^|[_.-])(?:secret|token|password|passwd|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|auth[_-]?token|session[_-]?key)(?:$|[_.-])/i;

/** True when a key name says its value is a secret (`OPENAI_API_KEY`, `password`). */
export function isSensitiveName(name: string): boolean {
  return SENSITIVE_NAME.test(name);
}

/** Values that are not secrets themselves: empty, a reference to a variable, or already redacted. */
function isPlaceholder(value: string): boolean {
  const bare = value.replace(/^["']|["']$/g, '');
  return bare.length === 0 || bare.startsWith('$') || bare.startsWith('[REDACTED') || /^\*+$/.test(bare);
}

export const redactionRules: readonly RedactionRule[] = [
  {
    kind: 'private-key',
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*$)/g,
  },
  {
    kind: 'gcp-private-key',
    pattern: /("private_key"\s*:\s*")((?:[^"\\]|\\.)*)(")/g,
    replace: (marker, _match, open = '', value = '', close = '') =>
      isPlaceholder(value) ? `${open}${value}${close}` : `${open}${marker}${close}`,
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
    kind: 'url-password',
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)([^\s/@]+)(@)/gi,
    replace: (marker, _match, prefix = '', password = '', at = '') =>
      isPlaceholder(password) ? `${prefix}${password}${at}` : `${prefix}${marker}${at}`,
  },
  {
    kind: 'secret-assignment',
    pattern: /(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]*)([ \t]*=(?:[ \t]*(?=["']))?)("[^"\n]*"|'[^'\n]*'|[^\s"'\n,;&]+)/g,
    replace: (marker, match, name = '', equals = '', value = '') =>
      isSensitiveName(name) && !isPlaceholder(value) ? `${name}${equals}${marker}` : match,
  },
  {
    kind: 'secret-assignment',
    pattern: /(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]*)([ \t]*:[ \t]+)("[^"\n]*"|'[^'\n]*'|[^\s"'\n,;&]+)/g,
    replace: (marker, match, name = '', colon = '', value = '') =>
      isSensitiveName(name) && !isPlaceholder(value) ? `${name}${colon}${marker}` : match,
  },
  {
    kind: 'secret-field',
    pattern: /("([A-Za-z_][A-Za-z0-9_.-]*)"\s*:\s*")((?:[^"\\]|\\.)*)(")/g,
    replace: (marker, match, open = '', name = '', value = '', close = '') =>
      isSensitiveName(name) && !isPlaceholder(value) ? `${open}${marker}${close}` : match,
  },
];
