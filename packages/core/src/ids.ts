import { randomBytes } from 'node:crypto';
import { InvalidInputError } from './errors.js';

const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** True when `id` may be used as a session or run id (and so as part of a file name). */
export function isSafeId(id: string): boolean {
  return SAFE_ID.test(id);
}

/** Throws a clear error unless `id` is a safe id; `what` names it in the message ("session id"). */
export function assertSafeId(id: string, what: string): string {
  if (!isSafeId(id)) {
    throw new InvalidInputError({
      message: `Invalid ${what} ${JSON.stringify(id.slice(0, 140))}: use 1–128 characters from A–Z, a–z, 0–9, "_" and "-".`,
    });
  }
  return id;
}

/** A new sortable id such as `run_mdx3k2a1_9f2c41d07be3`. */
export function createId(prefix: string, now: number = Date.now()): string {
  return `${prefix}_${now.toString(36)}_${randomBytes(6).toString('hex')}`;
}
