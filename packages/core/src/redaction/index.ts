export { isSensitiveName, redactionRules, type RedactionRule } from './patterns.js';
export { createRedactor, MIN_SECRET_LENGTH, type Redactor, type RedactorOptions } from './redactor.js';
