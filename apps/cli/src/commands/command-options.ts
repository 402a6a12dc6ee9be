import { InvalidArgumentError, Option } from 'commander';

/**
 * One command-line option: how commander declares it, and the type of the value a command
 * receives. The key an option is stored under in a spec record is the field commands read; it
 * must be commander's camel-cased name for the flag (`--dry-run` → `dryRun`), which
 * {@link parseOptions} checks.
 */
export interface OptionSpec<Value> {
  /** A new commander option (a program is built per invocation). */
  readonly option: () => Option;
  /** The value commander parsed, or undefined when the flag was not given. */
  readonly read: (value: unknown) => Value | undefined;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec<unknown>>>;

/** The typed options a spec record parses into; every option may be absent. */
export type ParsedOptions<Specs extends OptionSpecs> = {
  readonly [Key in keyof Specs]?: Specs[Key] extends OptionSpec<infer Value> ? Value : never;
};

function spec<Value>(option: () => Option, isValue: (value: unknown) => value is Value): OptionSpec<Value> {
  return {
    option,
    read: (value) => {
      if (value === undefined || isValue(value)) return value;
      throw new Error(`Option ${option().flags} parsed to ${JSON.stringify(value)}; this is a bug in Forge.`);
    },
  };
}

const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';
const isString = (value: unknown): value is string => typeof value === 'string';

/** A switch such as `--json`, or a negated one such as `--no-session` (true unless given). */
export function flag(flags: string, description: string): OptionSpec<boolean> {
  return spec(() => new Option(flags, description), isBoolean);
}

/** An option with a free-form value, such as `--session <id>`. */
export function text(flags: string, description: string): OptionSpec<string> {
  return spec(() => new Option(flags, description), isString);
}

/** An option whose value is one of `choices`; commander rejects any other. */
export function oneOf<const Choice extends string>(
  flags: string,
  description: string,
  choices: readonly Choice[],
): OptionSpec<Choice> {
  return spec(
    () => new Option(flags, description).choices(choices),
    (value): value is Choice => choices.some((choice) => choice === value),
  );
}

/** An option whose value is a positive whole number, such as `--max-steps <n>`. */
export function positiveInteger(flags: string, description: string): OptionSpec<number> {
  return spec(
    () => new Option(flags, description).argParser(parsePositiveInteger),
    (value): value is number => Number.isSafeInteger(value),
  );
}

function parsePositiveInteger(value: string): number {
  if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError('Expected a positive whole number such as 10.');
  }
  return Number(value);
}

/** `--json`, described for the command's document. */
export function jsonOutput(description: string): { readonly json: OptionSpec<boolean> } {
  return { json: flag('--json', description) };
}

/** `--session <id>`: the stored session a command works on (with `--last` and `--resume`, see {@link sessionTargetGlobals}). */
export function sessionTarget(description: string): { readonly session: OptionSpec<string> } {
  return { session: text('--session <id>', description) };
}

/**
 * Reads commander's values for `specs` into one typed object, once per invocation. The object is
 * new for every invocation, so it also keys what is loaded once per invocation (the configuration).
 */
export function parseOptions<Specs extends OptionSpecs>(
  specs: Specs,
  values: Readonly<Record<string, unknown>>,
): ParsedOptions<Specs> {
  const parsed: Record<string, unknown> = {};
  for (const [key, optionSpec] of Object.entries(specs)) {
    const attribute = optionSpec.option().attributeName();
    if (attribute !== key)
      throw new Error(
        `Option ${optionSpec.option().flags} is declared as "${key}" but commander names it "${attribute}"; this is a bug in Forge.`,
      );
    const value = optionSpec.read(values[key]);
    if (value !== undefined) parsed[key] = value;
  }
  return parsed as ParsedOptions<Specs>;
}
