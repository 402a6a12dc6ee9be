import { AuthError, wrapModelAdapter, type ModelAdapter } from '@forge/core';

/**
 * `adapter` for measuring only (made without its API key): it estimates, and refuses to stream or
 * compact with the `AuthError` that names the missing key.
 */
export function measuringOnly(adapter: ModelAdapter, missing: string): ModelAdapter {
  const refuse = (): never => {
    throw new AuthError({ message: missing });
  };
  return wrapModelAdapter({
    model: adapter,
    middleware: {
      wrapStream: () => ({
        [Symbol.asyncIterator]: () => ({ next: async () => refuse() }),
      }),
      compact: async () => refuse(),
    },
  });
}
