#!/usr/bin/env node
import { main } from '../dist/main.js';

// A reader that goes away (`forge run ... | head`, EPIPE) is not an error worth a stack trace; nor
// is a closed terminal (EIO, with SIGHUP on its way). Either way a run still has to be recorded as
// cancelled and its session closed (a run cancels itself on EPIPE), so output is dropped and
// Forge carries on ending the run.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE' || error.code === 'EIO' || error.code === 'ERR_STREAM_DESTROYED') return;
    throw error;
  });
}

const code = await main(process.argv);
process.exitCode = code;
// Ended by SIGHUP (129) or SIGTERM (143): the run is recorded and its lock released by now, so
// nothing Forge still waits for (a server that does not exit, a read that never returns) may keep
// the process alive after it was asked to stop. After a hang-up on a terminal, Node's own reset
// of the terminal at exit fails on the closed device and aborts; dying of the SIGHUP itself skips
// it, and a shell reports that as 129 all the same.
if (code === 129 && [process.stdin, process.stdout, process.stderr].some((stream) => stream.isTTY)) {
  process.removeAllListeners('SIGHUP');
  process.kill(process.pid, 'SIGHUP');
} else if (code === 129 || code === 141 || code === 143) {
  process.exit(code);
}
