import { createRedactor, type Redactor } from '@forge/core/redaction';
import { SessionNotFoundError } from './errors.js';
import { forgeHomeLayout } from './home.js';
import { readSessionLog } from './log-reader.js';
import { isErrorCode } from './private-fs.js';
import { sessionPaths } from './session-files.js';
import { readStoredFile } from './stored-file.js';
import type { SessionTranscript } from './session-state.js';
import { parseV1Session, transcriptFromV1 } from './v1.js';

/**
 * Loads a session without taking its lock and without writing anything: the transcript, runs,
 * current checkpoint and warnings (a torn last record is reported and left out). Safe while
 * another process writes the session. A v1 session is read as it is (redacted the way migration
 * would redact it) and not migrated.
 */
export async function loadTranscript(
  home: string,
  id: string,
  options: { readonly redactor?: Redactor } = {},
): Promise<SessionTranscript> {
  const layout = forgeHomeLayout(home);
  const paths = sessionPaths(layout, id);
  try {
    return (await readSessionLog({ file: paths.logFile, sessionId: id })).transcript;
  } catch (error) {
    if (!isErrorCode(error, 'ENOENT')) throw error;
  }
  let content: string;
  try {
    content = (await readStoredFile(paths.v1File)).toString('utf8');
  } catch (error) {
    if (isErrorCode(error, 'ENOENT'))
      throw new SessionNotFoundError({ sessionId: id, sessionsDirectory: layout.sessions });
    throw error;
  }
  return transcriptFromV1(
    parseV1Session(content, { file: paths.v1File, sessionId: id }),
    options.redactor ?? createRedactor(),
  );
}
