import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

type Primitive = string | number | boolean | string[];

/** One field of the form a server asks the user to fill in. */
export interface ElicitationField {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  /** The values allowed (enums; for `array`, the values each item may take). */
  readonly choices?: readonly string[];
  readonly format?: string;
  readonly default?: Primitive;
  readonly required: boolean;
}

/** A server's request for input, as Forge shows it to the user. */
export interface ElicitationRequest {
  /** The configured name of the server asking. */
  readonly server: string;
  /** The server's own words: untrusted text. */
  readonly message: string;
  readonly fields: readonly ElicitationField[];
}

export type ElicitationAnswer =
  | { readonly action: 'accept'; readonly content: Readonly<Record<string, Primitive>> }
  | { readonly action: 'decline' | 'cancel' };

/** Asks the user; `forge run` has none, so servers' requests are declined there. */
export type ElicitationHandler = (request: ElicitationRequest) => Promise<ElicitationAnswer>;

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function choicesOf(property: Record<string, unknown>): string[] | undefined {
  const direct = property['enum'];
  if (Array.isArray(direct)) return direct.map(String);
  const options = property['oneOf'] ?? property['anyOf'];
  if (Array.isArray(options))
    return options.flatMap((option) =>
      option !== null && typeof option === 'object' && 'const' in option ? [String(option.const)] : [],
    );
  const items = property['items'];
  return items !== null && typeof items === 'object' ? choicesOf(items as Record<string, unknown>) : undefined;
}

function defaultOf(value: unknown): Primitive | undefined {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  return undefined;
}

/** The fields of a form request's schema, in the order the server wrote them. */
export function elicitationFields(schema: ElicitRequest['params']): ElicitationField[] {
  if (!('requestedSchema' in schema)) return [];
  const required = new Set(schema.requestedSchema.required ?? []);
  return Object.entries(schema.requestedSchema.properties).map(([name, raw]) => {
    const property = raw as Record<string, unknown>;
    const type = property['type'];
    const choices = choicesOf(property);
    const fallback = defaultOf(property['default']);
    const title = textOf(property['title']);
    const description = textOf(property['description']);
    const format = textOf(property['format']);
    return {
      name,
      type: type === 'number' || type === 'integer' || type === 'boolean' || type === 'array' ? type : 'string',
      required: required.has(name),
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
      ...(format === undefined ? {} : { format }),
      ...(choices === undefined ? {} : { choices }),
      ...(fallback === undefined ? {} : { default: fallback }),
    };
  });
}

/**
 * The content sent back for an accepted form: what the user gave, and for every field left out
 * that has a default in the schema, that default.
 */
export function withSchemaDefaults(
  fields: readonly ElicitationField[],
  given: Readonly<Record<string, Primitive>>,
): Record<string, Primitive> {
  const content: Record<string, Primitive> = { ...given };
  for (const field of fields)
    if (content[field.name] === undefined && field.default !== undefined) content[field.name] = field.default;
  return content;
}

/**
 * Reads one typed answer for `field`; an empty answer is "left out" (undefined). Returns an
 * error message for a value the field does not take.
 */
export function parseFieldAnswer(
  field: ElicitationField,
  text: string,
): { readonly value?: Primitive } | { readonly error: string } {
  const trimmed = text.trim();
  if (trimmed === '') return field.required && field.default === undefined ? { error: 'this field is required' } : {};
  if (field.type === 'boolean') {
    if (/^(y|yes|true)$/i.test(trimmed)) return { value: true };
    if (/^(n|no|false)$/i.test(trimmed)) return { value: false };
    return { error: 'answer yes or no' };
  }
  if (field.type === 'number' || field.type === 'integer') {
    const number = Number(trimmed);
    if (!Number.isFinite(number) || (field.type === 'integer' && !Number.isInteger(number)))
      return { error: `give ${field.type === 'integer' ? 'a whole number' : 'a number'}` };
    return { value: number };
  }
  if (field.type === 'array') {
    const items = trimmed
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    const wrong = items.find((item) => field.choices !== undefined && !field.choices.includes(item));
    return wrong === undefined ? { value: items } : { error: `"${wrong}" is not one of ${field.choices?.join(', ')}` };
  }
  if (field.choices !== undefined && !field.choices.includes(trimmed))
    return { error: `choose one of ${field.choices.join(', ')}` };
  return { value: trimmed };
}

/** Answers one `elicitation/create` request of `server` through `handler`, declining when there is none. */
export async function answerElicitation(
  server: string,
  params: ElicitRequest['params'],
  handler: ElicitationHandler | undefined,
): Promise<ElicitResult> {
  if (handler === undefined || ('mode' in params && params.mode === 'url')) return { action: 'decline' };
  const fields = elicitationFields(params);
  const answer = await handler({ server, message: params.message, fields });
  if (answer.action !== 'accept') return { action: answer.action };
  return { action: 'accept', content: withSchemaDefaults(fields, answer.content) };
}
