import { APICallError } from '@ai-sdk/provider';
import {
  classifyProviderError,
  retryDelayMs,
  sleep,
  type ProviderErrorContext,
  type RetryPolicy,
} from '@forge/ai-sdk-bridge';
import { CancelledError, ForgeError, jsonObjectSchema, TransportError, type JsonObject } from '@forge/core';
import { z } from 'zod';

const compactResponseSchema = z.object({ output: z.array(jsonObjectSchema) });

export interface CompactCall {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: JsonObject;
  readonly signal: AbortSignal | undefined;
  readonly errors: ProviderErrorContext;
  readonly retry: RetryPolicy;
  readonly idleTimeoutMs: number;
}

/**
 * `POST /responses/compact` and the `output` items of its answer, checked to hold exactly one
 * compaction item. Rate limits and server errors are retried like model calls; every failure is
 * a typed Forge error.
 */
export async function postCompact(call: CompactCall): Promise<JsonObject[]> {
  for (let retry = 0; ; retry += 1) {
    try {
      return await postOnce(call);
    } catch (error) {
      const typed = ForgeError.isInstance(error) ? error : classifyProviderError(error, call.errors);
      const delay = retryDelayMs(typed, retry, call.retry);
      if (delay === undefined) throw typed;
      await sleep(delay, call.signal);
    }
  }
}

async function postOnce(call: CompactCall): Promise<JsonObject[]> {
  if (call.signal?.aborted) throw new CancelledError();
  const timeout = AbortSignal.timeout(call.idleTimeoutMs);
  const signal = call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout]);
  let response: Response;
  let text: string;
  try {
    response = await fetch(call.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...call.headers },
      body: JSON.stringify(call.body),
      signal,
    });
    text = await response.text();
  } catch (error) {
    if (call.signal?.aborted) throw new CancelledError();
    if (timeout.aborted) {
      throw new TransportError({
        message: `${call.errors.providerLabel} at ${call.errors.baseURL} did not answer the compaction request within ${call.idleTimeoutMs} ms.`,
        isRetryable: true,
        cause: error,
      });
    }
    throw classifyProviderError(error, call.errors);
  }
  if (!response.ok) {
    throw classifyProviderError(
      new APICallError({
        message: `HTTP ${response.status}`,
        url: call.url,
        requestBodyValues: undefined,
        statusCode: response.status,
        responseHeaders: Object.fromEntries(response.headers.entries()),
        responseBody: text,
      }),
      call.errors,
    );
  }
  const parsed = compactResponseSchema.safeParse(parseJson(text));
  if (!parsed.success) {
    throw new TransportError({
      message: `${call.errors.providerLabel} at ${call.errors.baseURL} answered the compaction request with a body that has no output list.`,
      isRetryable: false,
    });
  }
  const compactions = parsed.data.output.filter((item) => item['type'] === 'compaction');
  if (compactions.length !== 1) {
    throw new TransportError({
      message: `${call.errors.providerLabel} at ${call.errors.baseURL} returned ${compactions.length} compaction items (expected exactly one); the conversation was not compacted.`,
      isRetryable: false,
    });
  }
  return parsed.data.output;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
