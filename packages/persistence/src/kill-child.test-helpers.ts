import { killTestBatchSize, killTestMessage } from './kill-turns.test-helpers.js';
import { openSession } from './session-open.js';

/*
 * Child process of the kill test: opens the session (recovering whatever the previous child left),
 * then appends messages forever, printing `ack <count>` after each append has returned — that
 * is, after the records are on disk. The parent kills it with SIGKILL at a random moment.
 */
const [home, id] = process.argv.slice(2);
if (home === undefined || id === undefined) throw new Error('usage: kill-child <home> <session-id>');
const writer = await openSession(home, id);
let next = writer.messages.length;
process.stdout.write(`ready ${next}\n`);
for (;;) {
  const batch = Array.from({ length: killTestBatchSize(next) }, (_, offset) => killTestMessage(next + offset));
  await writer.appendMessages(batch);
  next += batch.length;
  process.stdout.write(`ack ${next}\n`);
}
