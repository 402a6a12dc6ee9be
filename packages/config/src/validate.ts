import type { z } from 'zod';
import type { ConfigIssue } from './config-error.js';
import { ConfigError } from './config-error.js';
import { parseJsonText } from './parse-json.js';
import { CONFIG_SCHEMA_VERSION, configFileSchema, type ConfigFile } from './schema.js';

/** Zod issues as located configuration problems; unknown keys get one issue each, with their full path. */
export function zodIssues(error: z.ZodError): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        issues.push({
          path: path === '' ? key : `${path}.${key}`,
          message: 'unknown key (check the spelling; see the JSON Schema for the allowed keys)',
        });
    } else if (path === 'schemaVersion') {
      issues.push({
        path,
        message: `must be ${CONFIG_SCHEMA_VERSION}: this Forge reads configuration version ${CONFIG_SCHEMA_VERSION}`,
      });
    } else {
      issues.push({ path, message: issue.message });
    }
  }
  return issues;
}

/** Parses and checks the text of one configuration file; `source` names it in errors. */
export function parseConfigText(text: string, source: string): ConfigFile {
  const json = parseJsonText(text, source);
  const parsed = configFileSchema.safeParse(json);
  if (!parsed.success) throw new ConfigError(source, zodIssues(parsed.error));
  return parsed.data;
}
