/** What a failed command's output shows the sandbox stopped. */
export type SandboxDenial = { readonly kind: 'network' } | { readonly kind: 'read-only'; readonly path?: string };

/** Messages of programs that found no network: libc (`strerror`), Node (error codes), curl, git, pip, npm. */
const NETWORK_FAILURE =
  /Network is unreachable|ENETUNREACH|ECONNREFUSED|Connection refused|EAI_AGAIN|ENOTFOUND|Temporary failure in name resolution|Could not resolve host|Name or service not known|getaddrinfo|No address associated with hostname/i;

/** `Read-only file system` (libc) and `EROFS` (Node), with the path where the message names one. */
const READ_ONLY_LINE = /^.*(?:Read-only file system|EROFS).*$/im;
const QUOTED_PATH = /['"‘`]([^'"’`\n]+)['"’`]/;
const PATH_BEFORE_COLON =
  /(?:cannot create|can't create|cannot open|cannot touch|cannot remove|cannot mkdir|couldn't create)\s+(?:directory\s+)?([^\s:'"]+)\s*:/i;

/**
 * The sandbox denial a failed command's output shows, if any: a write to a read-only path, or a
 * connection attempt while the network is off (`networkOff`). Read only from the output, so a
 * program that reports nothing the usual way is not recognised.
 */
export function findSandboxDenial(output: string, networkOff: boolean): SandboxDenial | undefined {
  const readOnly = READ_ONLY_LINE.exec(output);
  if (readOnly !== null) {
    const line = readOnly[0];
    const named = PATH_BEFORE_COLON.exec(line)?.[1] ?? QUOTED_PATH.exec(line)?.[1];
    return named === undefined ? { kind: 'read-only' } : { kind: 'read-only', path: named };
  }
  if (networkOff && NETWORK_FAILURE.test(output)) return { kind: 'network' };
  return undefined;
}

/** The note a tool error about `denial` ends with: what the sandbox stopped, and how to ask instead of retrying. */
export function sandboxDenialNote(denial: SandboxDenial): string {
  if (denial.kind === 'network') {
    return '[sandbox: the network is off in the sandbox, so this command could not connect. Do not retry it unchanged: if it needs the network, call run_command again with "sandbox": "network" and the user is asked to approve it.]';
  }
  const where = denial.path === undefined ? 'a read-only path' : `read-only path ${denial.path}`;
  return (
    `[sandbox: ${where}: commands may write only inside the workspace (not .git, AGENTS.md or .forge/) and in $TMPDIR. ` +
    'Do not retry it unchanged: if it must write there, call run_command again with "sandbox": "none" and the user is asked to approve it.]'
  );
}
