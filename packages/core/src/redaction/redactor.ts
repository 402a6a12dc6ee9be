import type { JsonValue } from '../json.js';
import { isSensitiveName, redactionRules } from './patterns.js';

/** Configured secrets shorter than this are ignored: replacing every "abc" would wreck the text. */
export const MIN_SECRET_LENGTH = 6;

export interface RedactorOptions {
  /** Exact secret values to remove (API keys from the environment, tokens from config). */
  readonly secrets?: readonly string[];
}

export interface Redactor {
  /** `text` with every configured secret and recognised credential replaced by `[REDACTED:<kind>]`. */
  redact(text: string): string;
  /**
   * A copy of `value` with every string redacted, and the whole string value of any field whose
   * name says it is a secret (`password`, `apiKey`, `GITHUB_TOKEN`). Keys are kept as they are.
   */
  redactJson<T extends JsonValue>(value: T): T;
}

function marker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/**
 * Builds a redactor for configured secret values plus common credential shapes (OpenAI,
 * Anthropic, GitHub, AWS, GCP, Slack, Stripe, JWTs, PEM private keys, `NAME=value` assignments of
 * secret-named variables, passwords in URLs). Redacting twice gives the same text as once.
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const secrets = [...new Set(options.secrets ?? [])]
    .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
    .sort((left, right) => right.length - left.length);

  const redact = (text: string): string => {
    let result = text;
    for (const secret of secrets) {
      if (result.includes(secret)) result = result.split(secret).join(marker('secret'));
    }
    for (const rule of redactionRules) {
      rule.pattern.lastIndex = 0;
      if (!rule.pattern.test(result)) continue;
      rule.pattern.lastIndex = 0;
      const replaceWith = rule.replace;
      result =
        replaceWith === undefined
          ? result.replace(rule.pattern, marker(rule.kind))
          : result.replace(rule.pattern, (match: string, ...rest: unknown[]) => {
              const end = rest.findIndex((item) => typeof item === 'number');
              const groups = rest.slice(0, end).map((group) => (typeof group === 'string' ? group : ''));
              return replaceWith(marker(rule.kind), match, ...groups);
            });
    }
    return result;
  };

  const redactValue = (value: JsonValue): JsonValue => {
    if (typeof value === 'string') return redact(value);
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(redactValue);
    const copy: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value as { readonly [key: string]: JsonValue })) {
      copy[key] =
        typeof item === 'string' && item.length > 0 && isSensitiveName(key) && !item.startsWith('[REDACTED')
          ? marker('secret-field')
          : redactValue(item);
    }
    return copy;
  };

  return { redact, redactJson: <T extends JsonValue>(value: T) => redactValue(value) as T };
}
