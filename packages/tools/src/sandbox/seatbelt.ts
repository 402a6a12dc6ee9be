export interface SeatbeltConfinement {
  readonly writable: readonly string[];
  readonly readOnly: readonly string[];
  readonly network: boolean;
}

/** A string literal of the Seatbelt profile language. */
function literal(value: string): string {
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/**
 * The Seatbelt profile (`sandbox-exec -p`) of a confined command on macOS: everything allowed but
 * file writes outside the writable directories (and inside the read-only paths under them), and
 * the network unless asked. Untested: Forge's test machines run Linux (docs/security.md).
 */
export function seatbeltProfile(confinement: SeatbeltConfinement): string {
  const lines = [
    '(version 1)',
    '(allow default)',
    '(deny file-write*)',
    '(allow file-write* (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))',
  ];
  for (const directory of confinement.writable) lines.push(`(allow file-write* (subpath ${literal(directory)}))`);
  for (const file of confinement.readOnly) lines.push(`(deny file-write* (subpath ${literal(file)}))`);
  if (!confinement.network) lines.push('(deny network*)');
  return `${lines.join('\n')}\n`;
}

/** `sandbox-exec` arguments running `argv` under {@link seatbeltProfile}. */
export function seatbeltArguments(confinement: SeatbeltConfinement, argv: readonly string[]): string[] {
  return ['-p', seatbeltProfile(confinement), ...argv];
}
