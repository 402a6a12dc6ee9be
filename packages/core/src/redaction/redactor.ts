import type { JsonValue } from '../json.js';
import { isKeyFilePath, KEY_FILE_CONTENT, redactionRules } from './patterns.js';
import { isSecretValue } from './secret-names.js';

/** Configured secrets shorter than this are ignored: replacing every "abc" would wreck the text. */
export const MIN_SECRET_LENGTH = 6;

export interface RedactorOptions {
  /** Exact secret values to remove (API keys from the environment, tokens from config). */
  readonly secrets?: readonly string[];
}

/** Where a text came from, when that tells more than its shape. */
export interface RedactionContext {
  /** The file the text was read from (a tool result's `path`): all of a key file's base64 is key. */
  readonly file?: string;
}

export interface Redactor {
  /**
   * `text` with every configured secret and recognised credential replaced by `[REDACTED:<kind>]`;
   * with a `context.file` that names a key file (`*.pem`, `id_ed25519`), also every base64 run in it.
   */
  redact(text: string, context?: RedactionContext): string;
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
 * Anthropic, GitHub, AWS, GCP, Slack, Stripe, JWTs, PEM private keys and key bodies without their
 * BEGIN line, assignments and fields of secret-named keys in any case style, passwords in URLs).
 * Redacting twice gives the same text as once.
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const secrets = [...new Set(options.secrets ?? [])]
    .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
    .sort((left, right) => right.length - left.length);

  const redact = (text: string, context?: RedactionContext): string => {
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
    if (context?.file !== undefined && isKeyFilePath(context.file))
      result = result.replace(KEY_FILE_CONTENT, marker('private-key'));
    return result;
  };

  const redactValue = (value: JsonValue): JsonValue => {
    if (typeof value === 'string') return redact(value);
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(redactValue);
    const copy: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value as { readonly [key: string]: JsonValue })) {
      copy[key] =
        typeof item === 'string' && isSecretValue(key, item, { quoted: true })
          ? marker('secret-field')
          : redactValue(item);
    }
    return copy;
  };

  return { redact, redactJson: <T extends JsonValue>(value: T) => redactValue(value) as T };
}
