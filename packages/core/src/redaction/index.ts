/* `@forge/core/redaction`: removing secrets from what Forge shows and stores. */
export { createRedactor, MIN_SECRET_LENGTH, type RedactionContext, type Redactor } from './redactor.js';
export { isSecretName, isSecretValue } from './secret-names.js';
