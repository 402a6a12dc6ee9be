import { ForgeError } from '@forge/core';

/**
 * A model id that cannot be used as given: no such provider or model, a missing API key, a
 * configured server or tokenizer that is wrong. The user fixes it on the command line or in the
 * configuration (the CLI exits 2); the message says what to change.
 */
export class ModelChoiceError extends ForgeError {
  static override readonly errorCode = 'model_choice';
  constructor(message: string) {
    super({ code: ModelChoiceError.errorCode, message, isRetryable: false });
    this.name = 'ModelChoiceError';
  }
}
