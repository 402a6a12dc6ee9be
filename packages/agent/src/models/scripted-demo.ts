import { truncateText } from '@forge/core/checkpoint';
import {
  createId,
  type Message,
  type ModelAdapter,
  type ModelCallOptions,
  type ModelRequest,
  type ModelStreamPart,
  type TokenEstimate,
  type ToolResultPart,
} from '@forge/core';
import { ScriptedModel, type ScriptedReply } from '@forge/core/testing';

const PROVIDER = 'scripted';
const MODEL_ID = 'demo';
/** The first line of every demo answer: nobody should take the demo's summary for an answer to their request. */
export const DEMO_FIRST_LINE =
  'The scripted demo model is answering, not a real model: it lists and reads the workspace but does not act on your request.';
/** Characters per streamed delta, so the demo answer arrives in pieces like a real model's. */
const DELTA_LENGTH = 24;

/**
 * `scripted:demo`: a deterministic model that needs no network or key. Each run it lists the
 * workspace, reads the README (or the first file it finds), and answers with facts taken from
 * those tool results. Every call plays a fresh one-step `ScriptedModel` whose step decides from
 * the request, so the model works for any number of runs and turns.
 */
export function createDemoModel(): ModelAdapter {
  const template = new ScriptedModel([], { provider: PROVIDER, modelId: MODEL_ID });
  return {
    specificationVersion: 'forge-model-v1',
    provider: PROVIDER,
    modelId: MODEL_ID,
    capabilities: template.capabilities,
    estimateRequestTokens: (request: ModelRequest): Promise<TokenEstimate> => template.estimateRequestTokens(request),
    countMessageTokens: (messages: readonly Message[]) => template.countMessageTokens(messages),
    doStream: (request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamPart> =>
      new ScriptedModel([decideDemoStep], { provider: PROVIDER, modelId: MODEL_ID }).doStream(request, options),
  };
}

/** The demo's policy: list, then read, then summarise what the two tool results showed. */
export function decideDemoStep(request: ModelRequest): ScriptedReply {
  const available = new Set(request.tools.map((tool) => tool.name));
  const listing = lastResult(request.continuation, 'list_files');
  const reading = lastResult(request.continuation, 'read_file');

  if (listing === undefined) {
    if (!available.has('list_files'))
      return answer('I cannot look at the workspace: this run offers no list_files tool.');
    return {
      text: `${DEMO_FIRST_LINE}\n`,
      toolCalls: [{ toolName: 'list_files', input: { recursive: true }, toolCallId: createId('call') }],
    };
  }
  const files = listing.output.type === 'text' ? parseListing(listing.output.value) : undefined;
  if (files === undefined) return answer(`I could not list the workspace: ${resultText(listing)}`);

  const target = pickFileToRead(files.files);
  if (reading === undefined && target !== undefined && available.has('read_file')) {
    return { toolCalls: [{ toolName: 'read_file', input: { path: target }, toolCallId: createId('call') }] };
  }
  return answer(summarise(files, reading));
}

interface Listing {
  readonly files: readonly string[];
  readonly directories: readonly string[];
  readonly truncated: boolean;
}

function parseListing(text: string): Listing {
  const files: string[] = [];
  const directories: string[] = [];
  let truncated = false;
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    if (line.startsWith('[')) {
      truncated ||= line.includes('truncated');
      continue;
    }
    if (line.endsWith('/')) directories.push(line.slice(0, -1));
    else if (!line.endsWith('@')) files.push(line);
  }
  return { files, directories, truncated };
}

/** A top-level README first, then any top-level file, then the first file at all. */
export function pickFileToRead(files: readonly string[]): string | undefined {
  const topLevel = files.filter((file) => !file.includes('/'));
  return topLevel.find((file) => /^readme(\.[a-z0-9]+)?$/i.test(file)) ?? topLevel[0] ?? files[0];
}

function summarise(listing: Listing, reading: ToolResultPart | undefined): string {
  const { files, directories, truncated } = listing;
  const topLevel = [
    ...directories.filter((path) => !path.includes('/')).map((path) => `${path}/`),
    ...files.filter((path) => !path.includes('/')),
  ].sort();
  const lines = [
    `Summary of the workspace (from the scripted demo model, which reads real files but needs no API key):`,
    '',
    `- list_files found ${plural(files.length, 'file')} in ${plural(directories.length, 'directory', 'directories')}` +
      `${truncated ? ' (the listing was cut at its entry cap, so there are more)' : ''}.`,
  ];
  if (topLevel.length > 0) lines.push(`- Top level: ${preview(topLevel, 12)}.`);
  const extensions = commonExtensions(files);
  if (extensions.length > 0) lines.push(`- Most common file types: ${extensions.join(', ')}.`);
  if (reading !== undefined) lines.push(...describeReading(reading));
  lines.push(
    '',
    "Choose a real model to get an actual answer to your request: 'forge models list' shows them, --model provider:id picks one.",
  );
  return `${lines.join('\n')}\n`;
}

function describeReading(reading: ToolResultPart): string[] {
  const path = readPath(reading);
  if (reading.output.type !== 'text') return [`- Reading ${path} failed: ${resultText(reading)}`];
  const content = reading.output.value;
  const textLines = content.split('\n');
  const heading = textLines.find((line) => /^#{1,6}\s+\S/.test(line))?.trim();
  const firstProse = firstParagraph(textLines);
  const described = [
    `- ${path} has ${plural(lineCount(content), 'line')}${heading === undefined ? '' : `; its first heading is "${heading}"`}.`,
  ];
  if (firstProse !== undefined) described.push(`- It begins: "${truncateText(firstProse, 200)}"`);
  return described;
}

/** The first run of prose lines (not a heading, list, table, fence or markup), joined into one line. */
function firstParagraph(lines: readonly string[]): string | undefined {
  const isProse = (line: string) => line.trim().length > 0 && !/^\s*(#|```|[-*]\s|\d+\.\s|\||<|!\[|>)/.test(line);
  const start = lines.findIndex(isProse);
  if (start === -1) return undefined;
  const paragraph: string[] = [];
  for (const line of lines.slice(start)) {
    if (!isProse(line)) break;
    paragraph.push(line.trim());
  }
  return paragraph.join(' ');
}

function readPath(reading: ToolResultPart): string {
  const path = reading.metadata?.path;
  return typeof path === 'string' ? path : 'the file';
}

function commonExtensions(files: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const file of files) {
    const match = /\.([A-Za-z0-9]+)$/.exec(file.slice(file.lastIndexOf('/') + 1));
    if (match?.[1] !== undefined) counts.set(`.${match[1]}`, (counts.get(`.${match[1]}`) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
    .slice(0, 3)
    .map(([extension, count]) => `${extension} (${count})`);
}

function lastResult(messages: readonly Message[], toolName: string): ToolResultPart | undefined {
  let found: ToolResultPart | undefined;
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.toolName === toolName) found = part;
  }
  return found;
}

function resultText(result: ToolResultPart): string {
  return result.output.type === 'json' ? JSON.stringify(result.output.value) : result.output.value;
}

function answer(text: string): ScriptedReply {
  return { text, textChunks: Math.max(1, Math.ceil(text.length / DELTA_LENGTH)) };
}

function lineCount(content: string): number {
  if (content.length === 0) return 0;
  return content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

function preview(items: readonly string[], max: number): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}
