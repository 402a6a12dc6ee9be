/* `@forge/core/testing`: scripted models and a fake estimator for tests. */
export { estimateWithFakeTokenizer } from './fake-estimator.js';
export { ScriptedModel, type ScriptedReply, type ScriptedStep, type ScriptedToolCall } from './scripted-model.js';
export { NativeCompactionModel } from './native-compaction-model.js';
