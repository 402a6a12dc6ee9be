import { ensureBubblewrap } from './debian-program.js';

/*
 * Before any test file: bubblewrap, which run_command's default sandbox uses on Linux, installed
 * with apt-get when missing. Every test that runs a command then runs it the way a user's default
 * settings do, whichever file happens to run first. Where it cannot be installed, the sandbox
 * tests fail with what to do, and the rest see Forge's notice that commands run unconfined.
 */
export default async function setup(): Promise<void> {
  if (process.platform !== 'linux') return;
  try {
    await ensureBubblewrap();
  } catch (error) {
    process.stderr.write(`vitest global set-up: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
