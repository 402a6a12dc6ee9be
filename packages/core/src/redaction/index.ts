export { isKeyFilePath, redactionRules, type RedactionRule } from './patterns.js';
export { createRedactor, MIN_SECRET_LENGTH, type RedactionContext, type Redactor, type RedactorOptions } from './redactor.js';
export { isSecretValue, isSensitiveName, nameWords, secretNameStrength, type SecretNameStrength } from './secret-names.js';
