export { estimateWithFakeTokenizer } from './fake-estimator.js';
export { ScriptedModel, type ScriptedModelOptions, type ScriptedReply, type ScriptedStep, type ScriptedToolCall } from './scripted-model.js';
export { NativeCompactionModel } from './native-compaction-model.js';
