import { readFile } from 'node:fs/promises';
import type { JsonValue, ModelAdapter, ModelCallOptions, ModelRequest, ModelStreamPart } from '@forge/core';
import { ScriptedModel, type ScriptedReply } from '@forge/core/testing';
import { z } from 'zod';
import { ModelChoiceError } from './model-choice-error.js';

/*
 * `scripted:file` — a test hook, offered only while FORGE_TEST_MODEL_SCRIPT names a file. The file
 * is a JSON array of replies, played in order across every turn of the process:
 *
 *   [{ "text": "Hello", "textChunks": 4, "delayMs": 150 },
 *    { "toolCalls": [{ "toolName": "edit_file", "input": { "path": "a.txt", "mode": "create", "content": "x\n" } }] },
 *    { "hang": true }]
 *
 * `delayMs` waits before each streamed part, so a terminal test can see text arrive piece by piece.
 * It exists so tests can drive the built binary in a real terminal, where no model can be injected.
 */

const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);

const replySchema = z.strictObject({
  text: z.string().optional(),
  textChunks: z.number().int().positive().optional(),
  toolCalls: z
    .array(z.strictObject({ toolName: z.string().min(1), input: jsonValue, toolCallId: z.string().min(1).optional() }))
    .optional(),
  hang: z.boolean().optional(),
  delayMs: z.number().int().min(0).max(60_000).optional(),
});

const scriptSchema = z.array(replySchema);

type FileReply = z.infer<typeof replySchema>;

/** Reads the script at `file` and returns the model that plays it. */
export async function loadScriptedFileModel(file: string): Promise<ModelAdapter> {
  let replies: FileReply[];
  try {
    replies = scriptSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    throw new ModelChoiceError(
      `the model script ${file} (FORGE_TEST_MODEL_SCRIPT) cannot be used: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return createScriptedFileModel(replies);
}

function toScriptedReply(reply: FileReply): ScriptedReply {
  const { delayMs: _delay, ...rest } = reply;
  return rest as ScriptedReply;
}

/** The model for a parsed script: a `ScriptedModel` whose parts are paced by each reply's `delayMs`. */
export function createScriptedFileModel(replies: readonly FileReply[]): ModelAdapter {
  const scripted = new ScriptedModel(replies.map(toScriptedReply), { provider: 'scripted', modelId: 'file' });
  return {
    specificationVersion: 'forge-model-v1',
    provider: scripted.provider,
    modelId: scripted.modelId,
    capabilities: scripted.capabilities,
    estimateRequestTokens: (request: ModelRequest) => scripted.estimateRequestTokens(request),
    countMessageTokens: (messages) => scripted.countMessageTokens(messages),
    doStream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamPart> {
      const delayMs = replies[scripted.requests.length]?.delayMs ?? 0;
      const parts = scripted.doStream(request, options);
      return delayMs === 0 ? parts : paced(parts, delayMs, options.signal);
    },
  };
}

async function* paced(
  parts: AsyncIterable<ModelStreamPart>,
  delayMs: number,
  signal: AbortSignal | undefined,
): AsyncIterable<ModelStreamPart> {
  for await (const part of parts) {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    signal?.throwIfAborted();
    yield part;
  }
}
