import { DEFAULT_CONTEXT_POLICY, type ContextMode, type ContextPolicy } from '@forge/core';
import { DEFAULT_WORKING_SET_BUDGET, type WorkingSetBudget } from '@forge/core/checkpoint';
import type { McpServerConfig } from '@forge/mcp/config';
import {
  APPROVAL_PROFILES,
  DEFAULT_TRACE_KEEP_DAYS,
  DEFAULT_TRACE_KEEP_RUNS,
  SANDBOX_MODES,
  type SandboxModeName,
  type ApprovalProfileName,
  type CompactionStrategyName,
  type CompatibleModelEntry,
  type ConfigLayer,
  type PriceEntry,
} from './schema.js';

/** Where a value came from, lowest precedence first. */
export type ConfigSource = 'default' | 'user' | 'project' | 'env' | 'flag';

export interface ValueProvenance {
  readonly source: ConfigSource;
  /** The file, for `user` and `project`. */
  readonly file?: string;
  /** The environment variable, for `env`. */
  readonly variable?: string;
}

/** The effective configuration, every value filled. */
export interface ForgeConfig {
  readonly model?: string;
  readonly approval: { readonly profile: ApprovalProfileName };
  readonly secrets: { readonly env: readonly string[] };
  /** The sandbox run_command runs in; which program enforces it is found at run time (`@forge/tools`). */
  readonly sandbox: SandboxConfig;
  /** OpenAI-compatible servers, from user configuration (or flags). */
  readonly models: readonly CompatibleModelEntry[];
  /** MCP servers to start, from user configuration (or flags). */
  readonly mcpServers: readonly McpServerConfig[];
  /** Prices by model id (`openai:gpt-5.1`), from user configuration (or flags). Provenance per id: `prices.<id>`. */
  readonly prices: Readonly<Record<string, PriceEntry>>;
  readonly context: ContextPolicy;
  /** Which context tools sessions in modes `shadow` and `compact` offer the model. */
  readonly contextTools: ContextToolsConfig;
  /** `context.compaction`: how sessions build checkpoints, and the compactor model of `model-structured`. */
  readonly compaction: CompactionConfig;
  /** `context.providerNative`: whether provider-native compaction state is kept on disk. */
  readonly providerNative: { readonly persist: boolean };
  /** `context.workingSet`: the bounds of the files a forge-state checkpoint keeps in hand. */
  readonly workingSet: WorkingSetBudget;
  /** `anthropic.cacheLifetime`: the lifetime of the cache breakpoints on `anthropic:` models. */
  readonly anthropic: { readonly cacheLifetime: '5m' | '1h' };
  /** `traces`: how long `forge gc` keeps run traces (session logs are never pruned). */
  readonly traces: TraceRetention;
}

export interface TraceRetention {
  readonly keepDays: number;
  readonly keepRuns: number;
}

export interface SandboxConfig {
  readonly mode: SandboxModeName;
  readonly network: boolean;
  readonly env: readonly string[];
}

/** The sandbox when no layer sets one: workspace writes, no network, nothing passed beyond the allow-list. */
export const DEFAULT_SANDBOX_CONFIG: SandboxConfig = Object.freeze({
  mode: 'workspace-write',
  network: false,
  env: Object.freeze([]) as readonly string[],
});

export interface CompactionConfig {
  readonly strategy: CompactionStrategyName;
  /** `provider:id`; user configuration, environment or flags only. */
  readonly model?: string;
}

/** `context.checkpointNote` and `context.requestCompaction`: both on unless turned off. */
export interface ContextToolsConfig {
  readonly checkpointNote: boolean;
  readonly requestCompaction: boolean;
}

const DEFAULT_CONTEXT_TOOLS: ContextToolsConfig = Object.freeze({ checkpointNote: true, requestCompaction: true });

const contextToolFields = ['checkpointNote', 'requestCompaction'] as const;

/** The approval profile used when no layer sets one. */
export const DEFAULT_APPROVAL_PROFILE: ApprovalProfileName = 'ask';

/**
 * The context mode Forge runs in when no configuration chooses one. `compact` (with the
 * deterministic forge-state checkpoint) was chosen from the offline eval results in
 * docs/evals.md: it sends the whole conversation while it fits and is the only mode that keeps a
 * session going once it outgrows the window. The library default of `runAgent` stays `warn`:
 * only a session can compact.
 */
export const DEFAULT_CONTEXT_MODE: ContextMode = 'compact';

export interface Layer {
  readonly source: Exclude<ConfigSource, 'default'>;
  readonly values: ConfigLayer;
  readonly file?: string;
  /** Dotted path → environment variable, for the `env` layer. */
  readonly variables?: Readonly<Record<string, string>>;
}

export interface MergedConfig {
  readonly config: ForgeConfig;
  /** Dotted path (`context.bufferTokens`) → where its value came from. */
  readonly provenance: Readonly<Record<string, ValueProvenance>>;
  readonly warnings: readonly string[];
}

/*
 * The modes a project may move the mode in force to. A project may only make Forge more careful:
 * toward `warn` (every message sent, warnings shown, nothing rewritten), from `compact` also to
 * `shadow`. It can never turn the warnings off (`off`), nor opt a user who chose `off` or `warn` —
 * or `shadow` — into a mode that builds or installs checkpoints.
 */
const projectMayMove: Record<ContextMode, readonly ContextMode[]> = {
  off: ['off', 'warn'],
  warn: ['warn'],
  shadow: ['shadow', 'warn'],
  compact: ['compact', 'shadow', 'warn'],
};
const approvalStrictness = (profile: ApprovalProfileName) =>
  APPROVAL_PROFILES.length - APPROVAL_PROFILES.indexOf(profile);
const sandboxStrictness = (mode: SandboxModeName) => SANDBOX_MODES.length - SANDBOX_MODES.indexOf(mode);

/** Reserves: a project may raise them (less room for input), never lower them. */
const floors = ['reservedOutputTokens', 'bufferTokens'] as const;
/** Ceilings: a project may lower them, never raise them. */
const ceilings = [
  'recentTailTokens',
  'summaryTargetTokens',
  'warnAtRatio',
  'compactAtRatio',
  'compactTargetRatio',
  'protectedToolOutputRatio',
  'fallbackContextWindowTokens',
] as const;
const workingSetFields = ['maxTokens', 'maxFileTokens', 'maxFiles'] as const;

function describe(provenance: ValueProvenance | undefined): string {
  if (provenance === undefined || provenance.source === 'default') return 'the default';
  return provenance.file === undefined
    ? `your ${provenance.source} setting`
    : `your user configuration (${provenance.file})`;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The values merged so far, changed in place by each layer. */
interface MergeState {
  readonly context: Mutable<ContextPolicy>;
  model: string | undefined;
  approval: ApprovalProfileName;
  secrets: string[];
  sandbox: SandboxConfig;
  models: readonly CompatibleModelEntry[];
  mcpServers: readonly McpServerConfig[];
  compaction: CompactionConfig;
  persistNative: boolean;
  anthropicCacheLifetime: '5m' | '1h';
  traces: TraceRetention;
  readonly workingSet: Mutable<WorkingSetBudget>;
  readonly contextTools: Mutable<ContextToolsConfig>;
  readonly prices: Record<string, PriceEntry>;
  readonly provenance: Record<string, ValueProvenance>;
  readonly warnings: string[];
}

/** One layer being merged: where its values come from and how a project's refusals are reported. */
interface LayerMerge {
  readonly state: MergeState;
  readonly values: ConfigLayer;
  readonly isProject: boolean;
  readonly where: string;
  readonly origin: (path: string) => ValueProvenance;
  readonly refuse: (path: string, given: string, kept: string) => void;
  /** Settings only the user may make: a project's value is ignored, with a warning saying why. */
  readonly userOnly: (path: string, why: string) => boolean;
}

/**
 * Merges layers in order (user < project < env < flags) over the defaults, recording the source
 * of every value. Project values may only tighten what defaults and user configuration set: a
 * looser value is replaced by the stricter one in force, with a warning, and project files may
 * not define compatible servers (they name network endpoints and credentials), MCP servers
 * (they are programs Forge would start on opening the workspace) or prices (they are a fact of
 * the user's account, and a repository could otherwise misstate what a session costs and steer
 * a priced decision). Environment and flags are the user's own choices for one invocation and
 * may set anything.
 */
export function mergeLayers(layers: readonly Layer[]): MergedConfig {
  const state = defaultState();
  for (const layer of layers) mergeLayer(layerMerge(state, layer));
  return mergedConfig(state);
}

function defaultState(): MergeState {
  const state: MergeState = {
    context: { ...DEFAULT_CONTEXT_POLICY, mode: DEFAULT_CONTEXT_MODE },
    model: undefined,
    approval: DEFAULT_APPROVAL_PROFILE,
    secrets: [],
    sandbox: DEFAULT_SANDBOX_CONFIG,
    models: [],
    mcpServers: [],
    compaction: { strategy: 'forge-state' },
    persistNative: false,
    anthropicCacheLifetime: '5m',
    traces: { keepDays: DEFAULT_TRACE_KEEP_DAYS, keepRuns: DEFAULT_TRACE_KEEP_RUNS },
    workingSet: { ...DEFAULT_WORKING_SET_BUDGET },
    contextTools: { ...DEFAULT_CONTEXT_TOOLS },
    prices: {},
    provenance: {},
    warnings: [],
  };
  for (const path of defaultPaths(state.context)) state.provenance[path] = { source: 'default' };
  return state;
}

function defaultPaths(context: ContextPolicy): string[] {
  return [
    ...[...Object.keys(context), ...contextToolFields].map((field) => `context.${field}`),
    'approval.profile',
    'anthropic.cacheLifetime',
    'secrets.env',
    ...['mode', 'network', 'env'].map((field) => `sandbox.${field}`),
    'models',
    'mcpServers',
    'context.compaction.strategy',
    'context.compaction.model',
    'context.providerNative.persist',
    ...['keepDays', 'keepRuns'].map((field) => `traces.${field}`),
    ...workingSetFields.map((field) => `context.workingSet.${field}`),
  ];
}

function layerMerge(state: MergeState, layer: Layer): LayerMerge {
  const isProject = layer.source === 'project';
  const where = layer.file ?? 'project configuration';
  return {
    state,
    values: layer.values,
    isProject,
    where,
    origin: (path) => ({
      source: layer.source,
      ...(layer.file === undefined ? {} : { file: layer.file }),
      ...(layer.variables?.[path] === undefined ? {} : { variable: layer.variables[path] }),
    }),
    refuse: (path, given, kept) => {
      state.warnings.push(
        `${where}: ${path} ${given} is looser than ${kept} from ${describe(state.provenance[path])}; keeping ${kept} (project configuration may only tighten limits).`,
      );
    },
    userOnly: (path, why) => {
      if (isProject) state.warnings.push(`${where}: ${path} is ignored: ${why}`);
      return !isProject;
    },
  };
}

function mergeLayer(merge: LayerMerge): void {
  mergeModel(merge);
  mergeApproval(merge);
  mergeSecrets(merge);
  mergeSandbox(merge);
  mergeUserOnlyLists(merge);
  mergePrices(merge);
  mergeAnthropic(merge);
  mergeTraces(merge);
  mergeCompaction(merge);
  mergeProviderNative(merge);
  mergeContextMode(merge);
  mergeContextLimits(merge);
}

function mergeModel({ state, values, origin }: LayerMerge): void {
  if (values.model === undefined) return;
  state.model = values.model;
  state.provenance['model'] = origin('model');
}

function mergeAnthropic({ state, values, origin }: LayerMerge): void {
  if (values.anthropic?.cacheLifetime === undefined) return;
  state.anthropicCacheLifetime = values.anthropic.cacheLifetime;
  state.provenance['anthropic.cacheLifetime'] = origin('anthropic.cacheLifetime');
}

function mergeTraces({ state, values, origin, userOnly }: LayerMerge): void {
  if (values.traces === undefined || !userOnly('traces', 'how long traces are kept is set in your user configuration.'))
    return;
  for (const field of ['keepDays', 'keepRuns'] as const) {
    const value = values.traces[field];
    if (value === undefined) continue;
    state.traces = { ...state.traces, [field]: value };
    state.provenance[`traces.${field}`] = origin(`traces.${field}`);
  }
}

function mergeApproval({ state, values, isProject, origin, refuse }: LayerMerge): void {
  if (values.approval === undefined) return;
  const wanted = values.approval.profile;
  if (isProject && approvalStrictness(wanted) < approvalStrictness(state.approval))
    refuse('approval.profile', wanted, state.approval);
  else {
    state.approval = wanted;
    state.provenance['approval.profile'] = origin('approval.profile');
  }
}

function mergeSecrets({ state, values, origin }: LayerMerge): void {
  if (values.secrets === undefined) return;
  const added = values.secrets.env.filter((name) => !state.secrets.includes(name));
  if (added.length > 0) {
    state.secrets = [...state.secrets, ...added];
    state.provenance['secrets.env'] = origin('secrets.env');
  }
}

function mergeSandbox({ state, values, isProject, origin, refuse }: LayerMerge): void {
  const sandboxValues = values.sandbox ?? {};
  if (sandboxValues.mode !== undefined) {
    if (isProject && sandboxStrictness(sandboxValues.mode) < sandboxStrictness(state.sandbox.mode))
      refuse('sandbox.mode', sandboxValues.mode, state.sandbox.mode);
    else {
      state.sandbox = { ...state.sandbox, mode: sandboxValues.mode };
      state.provenance['sandbox.mode'] = origin('sandbox.mode');
    }
  }
  if (sandboxValues.network !== undefined) {
    if (isProject && sandboxValues.network && !state.sandbox.network) refuse('sandbox.network', 'true', 'false');
    else {
      state.sandbox = { ...state.sandbox, network: sandboxValues.network };
      state.provenance['sandbox.network'] = origin('sandbox.network');
    }
  }
  if (sandboxValues.env !== undefined) {
    // A project may narrow the list in force, never add to it: every name it adds reaches commands.
    const inForce = state.sandbox.env;
    const wanted = isProject ? sandboxValues.env.filter((name) => inForce.includes(name)) : sandboxValues.env;
    const added = sandboxValues.env.filter((name) => !wanted.includes(name));
    if (added.length > 0) refuse('sandbox.env', added.join(', '), `[${inForce.join(', ')}]`);
    state.sandbox = { ...state.sandbox, env: [...new Set(wanted)] };
    state.provenance['sandbox.env'] = origin('sandbox.env');
  }
}

function mergeUserOnlyLists({ state, values, origin, userOnly }: LayerMerge): void {
  if (
    values.models !== undefined &&
    userOnly('models', 'compatible servers may be defined only in your user configuration, not by a project.')
  ) {
    state.models = values.models;
    state.provenance['models'] = origin('models');
  }
  if (
    values.mcpServers !== undefined &&
    userOnly(
      'mcpServers',
      'MCP servers are programs Forge starts or remote services it sends your credentials to, so they may be defined only in your user configuration, not by a project.',
    )
  ) {
    state.mcpServers = values.mcpServers;
    state.provenance['mcpServers'] = origin('mcpServers');
  }
}

function mergePrices({ state, values, origin, userOnly }: LayerMerge): void {
  if (
    values.prices === undefined ||
    !userOnly(
      'prices',
      'prices may be set only in your user configuration, not by a project (they are a fact of your account, not of a repository).',
    )
  )
    return;
  // Per model: a later layer's entry replaces an earlier one's for that model only.
  for (const [id, entry] of Object.entries(values.prices)) {
    state.prices[id] = entry;
    state.provenance[`prices.${id}`] = origin(`prices.${id}`);
  }
}

function mergeCompaction({ state, values, isProject, where, origin, userOnly }: LayerMerge): void {
  const chosen = values.context?.compaction ?? {};
  if (
    chosen.model !== undefined &&
    userOnly(
      'context.compaction.model',
      "a compactor model receives the conversation, so only you may choose one — set it in your user configuration, or pass --compactor to 'forge compact'.",
    )
  ) {
    state.compaction = { ...state.compaction, model: chosen.model };
    state.provenance['context.compaction.model'] = origin('context.compaction.model');
  }
  if (chosen.strategy === undefined) return;
  if (isProject && chosen.strategy !== 'forge-state') {
    state.warnings.push(
      `${where}: context.compaction.strategy ${chosen.strategy} is not applied: it would send the conversation to a model for every compaction; ` +
        `keeping ${state.compaction.strategy} from ${describe(state.provenance['context.compaction.strategy'])} (a project may only choose forge-state; set other strategies in your user configuration).`,
    );
  } else {
    state.compaction = { ...state.compaction, strategy: chosen.strategy };
    state.provenance['context.compaction.strategy'] = origin('context.compaction.strategy');
  }
}

function mergeProviderNative({ state, values, isProject, where, origin }: LayerMerge): void {
  const persist = values.context?.providerNative?.persist;
  if (persist === undefined) return;
  if (isProject && persist && !state.persistNative) {
    state.warnings.push(
      `${where}: context.providerNative.persist true is not applied: it writes the provider's compaction state (which holds your messages) to disk; ` +
        `keeping false from ${describe(state.provenance['context.providerNative.persist'])} (set it in your user configuration).`,
    );
  } else {
    state.persistNative = persist;
    state.provenance['context.providerNative.persist'] = origin('context.providerNative.persist');
  }
}

function mergeContextMode({ state, values, isProject, where, origin }: LayerMerge): void {
  const mode = values.context?.mode;
  if (mode === undefined) return;
  const { context } = state;
  if (isProject && !projectMayMove[context.mode].includes(mode)) {
    state.warnings.push(
      `${where}: context.mode ${mode} is not applied: it would move mode ${context.mode} from ${describe(state.provenance['context.mode'])} ` +
        `to one that ${mode === 'off' ? 'turns warnings off' : 'builds or installs checkpoints'}; keeping ${context.mode} (a project may only move the mode toward warn).`,
    );
  } else {
    context.mode = mode;
    state.provenance['context.mode'] = origin('context.mode');
  }
}

function mergeContextLimits(merge: LayerMerge): void {
  const { state } = merge;
  const section = merge.values.context ?? {};
  const looserIfLower = (wanted: number, current: number) => wanted < current;
  const looserIfHigher = (wanted: number, current: number) => wanted > current;
  tighten(merge, { prefix: 'context', target: state.context, fields: floors, looser: looserIfLower, wanted: section });
  // Offering a context tool gives the model more to do, so a project may turn one off but not on.
  tighten(merge, {
    prefix: 'context',
    target: state.contextTools,
    fields: contextToolFields,
    looser: (wanted: boolean, current: boolean) => wanted && !current,
    wanted: section,
  });
  tighten(merge, {
    prefix: 'context',
    target: state.context,
    fields: ceilings,
    looser: looserIfHigher,
    wanted: section,
  });
  // More text in hand costs tokens on every request: a project may lower these bounds, not raise them.
  tighten(merge, {
    prefix: 'context.workingSet',
    target: state.workingSet,
    fields: workingSetFields,
    looser: looserIfHigher,
    wanted: section.workingSet ?? {},
  });
}

/** Fields a project may only tighten: `looser` says when its value would loosen the one in force. */
interface Tightening<K extends string, V extends number | boolean> {
  readonly prefix: string;
  readonly target: Record<K, V>;
  readonly fields: readonly K[];
  readonly looser: (wanted: V, current: V) => boolean;
  readonly wanted: { readonly [P in K]?: V | undefined };
}

function tighten<K extends string, V extends number | boolean>(
  { isProject, origin, refuse, state }: LayerMerge,
  { prefix, target, fields, looser, wanted: wantedValues }: Tightening<K, V>,
): void {
  for (const field of fields) {
    const wanted = wantedValues[field];
    if (wanted === undefined) continue;
    const path = `${prefix}.${field}`;
    if (isProject && looser(wanted, target[field])) refuse(path, String(wanted), String(target[field]));
    else {
      target[field] = wanted;
      state.provenance[path] = origin(path);
    }
  }
}

function mergedConfig(state: MergeState): MergedConfig {
  return {
    config: {
      ...(state.model === undefined ? {} : { model: state.model }),
      approval: { profile: state.approval },
      secrets: { env: state.secrets },
      sandbox: state.sandbox,
      models: state.models,
      mcpServers: state.mcpServers,
      prices: state.prices,
      context: state.context,
      contextTools: state.contextTools,
      compaction: state.compaction,
      providerNative: { persist: state.persistNative },
      workingSet: state.workingSet,
      anthropic: { cacheLifetime: state.anthropicCacheLifetime },
      traces: state.traces,
    },
    provenance: state.provenance,
    warnings: state.warnings,
  };
}
