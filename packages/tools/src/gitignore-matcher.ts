import ignore, { type Ignore } from 'ignore';

/*
 * One `.gitignore`'s rules, compiled once, tested with a bound on the work per path. Glob rules
 * become regular expressions, and some (`*aaaa…a/**` + `/x*y*z`) take milliseconds per path each: two
 * thousand of them made one listing take 30 s. The rules are tested in chunks, later ones first,
 * with the clock read between chunks; a file whose rules cost too much is given up, and the walk
 * goes on without it (the caller says which file).
 */

/** Rules per compiled chunk: the clock is read between chunks. */
const RULES_PER_CHUNK = 100;
/** One path may take this long against one file's rules before the file is given up. */
export const MAX_MILLISECONDS_PER_PATH = 250;
/** Compiling one file's rules may take this long (2,000 plain rules take about 130 ms). */
export const MAX_COMPILE_MILLISECONDS = 400;
/**
 * Past this much matching time on one file, and this many paths (the first tests also compile
 * each rule's expression), it is given up when its paths take more than
 * {@link MAX_AVERAGE_MILLISECONDS} on average.
 */
const SETTLING = { milliseconds: 100, paths: 3 } as const;
/** The average matching time per path a `.gitignore` may cost: 2,000 plain rules cost about 3 ms, a few rules microseconds. */
export const MAX_AVERAGE_MILLISECONDS = 15;

/** Whether a path matched (`ignored`, `unignored` by a `!` rule), or that the file was given up. */
export type MatchResult = { readonly ignored: boolean; readonly unignored: boolean } | 'given-up';

export class GitignoreMatcher {
  private readonly chunks: readonly Ignore[];
  private spentMilliseconds = 0;
  private tested = 0;
  private givenUp = false;

  constructor(chunks: readonly Ignore[]) {
    this.chunks = chunks;
  }

  /**
   * The rules of `rules` that compile, in chunks; `invalid` counts those left out. Compiling
   * (each rule's expression is built and run once) is bounded too: past
   * {@link MAX_COMPILE_MILLISECONDS} there is no matcher, and the file is not used.
   */
  static compile(
    rules: readonly string[],
  ): { readonly matcher: GitignoreMatcher; readonly invalid: number } | { readonly tooSlow: number } {
    const started = performance.now();
    const chunks: Ignore[] = [];
    let invalid = 0;
    for (let start = 0; start < rules.length; start += RULES_PER_CHUNK) {
      const compiled = compileChunk(rules.slice(start, start + RULES_PER_CHUNK));
      chunks.push(compiled.ignore);
      invalid += compiled.invalid;
      const elapsed = performance.now() - started;
      if (elapsed > MAX_COMPILE_MILLISECONDS && start + RULES_PER_CHUNK < rules.length)
        return { tooSlow: Math.round(elapsed) };
    }
    return { matcher: new GitignoreMatcher(chunks), invalid };
  }

  /** Milliseconds spent matching, and on how many paths. */
  get cost(): { readonly milliseconds: number; readonly paths: number } {
    return { milliseconds: Math.round(this.spentMilliseconds), paths: this.tested };
  }

  /** `path` (relative to the file's directory) against the rules: the last matching rule decides, as in git. */
  test(path: string): MatchResult {
    if (this.givenUp) return 'given-up';
    const started = performance.now();
    let result = { ignored: false, unignored: false };
    for (let index = this.chunks.length - 1; index >= 0; index -= 1) {
      const chunk = (this.chunks[index] as Ignore).test(path);
      if (chunk.ignored || chunk.unignored) {
        result = chunk;
        break;
      }
      if (performance.now() - started > MAX_MILLISECONDS_PER_PATH) break;
    }
    const elapsed = performance.now() - started;
    this.spentMilliseconds += elapsed;
    this.tested += 1;
    if (
      elapsed > MAX_MILLISECONDS_PER_PATH ||
      (this.spentMilliseconds > SETTLING.milliseconds &&
        this.tested >= SETTLING.paths &&
        this.spentMilliseconds / this.tested > MAX_AVERAGE_MILLISECONDS)
    ) {
      this.givenUp = true;
      return 'given-up';
    }
    return result;
  }
}

/** The rules as one matcher; a rule the matcher cannot compile (it compiles lazily, on first test) is left out. */
function compileChunk(rules: readonly string[]): { ignore: Ignore; invalid: number } {
  const all = ignore().add([...rules]);
  try {
    all.test('a');
    return { ignore: all, invalid: 0 };
  } catch {
    const valid = rules.filter((rule) => {
      try {
        ignore().add(rule).test('a');
        return true;
      } catch {
        return false;
      }
    });
    return { ignore: ignore().add(valid), invalid: rules.length - valid.length };
  }
}
