import { CodexVersionError } from '../errors.js';

/** The Codex release this client was built and tested against. */
export const TESTED_CODEX_VERSION = '0.169.0';

/** Minor versions whose App Server protocol this client reads correctly. */
const supportedMinorVersions = new Set(['0.169']);

/**
 * The Codex version inside an App Server user agent such as
 * `forge/0.169.0 (Debian 12.0.0; x86_64) xterm (forge; 0.1.0)`, or undefined when it has none.
 */
export function versionFromUserAgent(userAgent: string): string | undefined {
  return /^[^/\s]+\/(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)/.exec(userAgent)?.[1];
}

/** The version in `codex --version` output (`codex-cli 0.169.0`). */
export function versionFromCliOutput(output: string): string | undefined {
  return /(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)/.exec(output)?.[1];
}

/** Whether this client speaks the protocol of `version`. */
export function isSupportedCodexVersion(version: string): boolean {
  const [major, minor] = version.split('.');
  return supportedMinorVersions.has(`${major}.${minor}`);
}

/**
 * Returns the version the server reported, or throws `CodexVersionError` when it reported none
 * or one this client does not know (unless `allowUntested`).
 */
export function checkServerVersion(userAgent: string, allowUntested: boolean): string {
  const version = versionFromUserAgent(userAgent);
  if (version === undefined) {
    throw new CodexVersionError({
      userAgent,
      message: `The Codex App Server did not report a version Forge can read (user agent ${JSON.stringify(userAgent)}). Install @openai/codex@${TESTED_CODEX_VERSION}.`,
    });
  }
  if (!allowUntested && !isSupportedCodexVersion(version)) {
    throw new CodexVersionError({
      userAgent,
      reportedVersion: version,
      message:
        `The Codex App Server is version ${version}, but Forge's Codex engine speaks the protocol of ${TESTED_CODEX_VERSION}. ` +
        `Install @openai/codex@${TESTED_CODEX_VERSION}, or opt in to an untested version (allowUntestedVersion).`,
    });
  }
  return version;
}
