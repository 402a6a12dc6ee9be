import { DEFAULT_CONTEXT_POLICY, type ContextMode, type ContextPolicy } from '@forge/core';
import { DEFAULT_WORKING_SET_BUDGET, type WorkingSetBudget } from '@forge/core/checkpoint';
import type { McpServerConfig } from '@forge/mcp/config';
import {
  APPROVAL_PROFILES,
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
  const context: { -readonly [K in keyof ContextPolicy]: ContextPolicy[K] } = {
    ...DEFAULT_CONTEXT_POLICY,
    mode: DEFAULT_CONTEXT_MODE,
  };
  let model: string | undefined;
  let approval: ApprovalProfileName = DEFAULT_APPROVAL_PROFILE;
  let secrets: string[] = [];
  let sandbox: SandboxConfig = DEFAULT_SANDBOX_CONFIG;
  let models: readonly CompatibleModelEntry[] = [];
  let mcpServers: readonly McpServerConfig[] = [];
  let compaction: CompactionConfig = { strategy: 'forge-state' };
  let persistNative = false;
  const workingSet: { -readonly [K in keyof WorkingSetBudget]: number } = { ...DEFAULT_WORKING_SET_BUDGET };
  const contextTools: { -readonly [K in keyof ContextToolsConfig]: boolean } = { ...DEFAULT_CONTEXT_TOOLS };
  const prices: Record<string, PriceEntry> = {};
  const provenance: Record<string, ValueProvenance> = {};
  const warnings: string[] = [];
  for (const field of [...Object.keys(context), ...contextToolFields])
    provenance[`context.${field}`] = { source: 'default' };
  provenance['approval.profile'] = { source: 'default' };
  provenance['secrets.env'] = { source: 'default' };
  for (const field of ['mode', 'network', 'env']) provenance[`sandbox.${field}`] = { source: 'default' };
  provenance['models'] = { source: 'default' };
  provenance['mcpServers'] = { source: 'default' };
  provenance['context.compaction.strategy'] = { source: 'default' };
  provenance['context.compaction.model'] = { source: 'default' };
  provenance['context.providerNative.persist'] = { source: 'default' };
  for (const field of workingSetFields) provenance[`context.workingSet.${field}`] = { source: 'default' };

  for (const layer of layers) {
    const origin = (path: string): ValueProvenance => ({
      source: layer.source,
      ...(layer.file === undefined ? {} : { file: layer.file }),
      ...(layer.variables?.[path] === undefined ? {} : { variable: layer.variables[path] }),
    });
    const isProject = layer.source === 'project';
    const where = layer.file ?? 'project configuration';
    const refuse = (path: string, given: string, kept: string) =>
      warnings.push(
        `${where}: ${path} ${given} is looser than ${kept} from ${describe(provenance[path])}; keeping ${kept} (project configuration may only tighten limits).`,
      );
    const { values } = layer;
    // Settings only the user may make: a project's value is ignored, with a warning saying why.
    const userOnly = (path: string, why: string): boolean => {
      if (isProject) warnings.push(`${where}: ${path} is ignored: ${why}`);
      return !isProject;
    };

    if (values.model !== undefined) {
      model = values.model;
      provenance['model'] = origin('model');
    }
    if (values.approval !== undefined) {
      const wanted = values.approval.profile;
      if (isProject && approvalStrictness(wanted) < approvalStrictness(approval))
        refuse('approval.profile', wanted, approval);
      else {
        approval = wanted;
        provenance['approval.profile'] = origin('approval.profile');
      }
    }
    if (values.secrets !== undefined) {
      const added = values.secrets.env.filter((name) => !secrets.includes(name));
      if (added.length > 0) {
        secrets = [...secrets, ...added];
        provenance['secrets.env'] = origin('secrets.env');
      }
    }
    const sandboxValues = values.sandbox ?? {};
    if (sandboxValues.mode !== undefined) {
      if (isProject && sandboxStrictness(sandboxValues.mode) < sandboxStrictness(sandbox.mode))
        refuse('sandbox.mode', sandboxValues.mode, sandbox.mode);
      else {
        sandbox = { ...sandbox, mode: sandboxValues.mode };
        provenance['sandbox.mode'] = origin('sandbox.mode');
      }
    }
    if (sandboxValues.network !== undefined) {
      if (isProject && sandboxValues.network && !sandbox.network) refuse('sandbox.network', 'true', 'false');
      else {
        sandbox = { ...sandbox, network: sandboxValues.network };
        provenance['sandbox.network'] = origin('sandbox.network');
      }
    }
    if (sandboxValues.env !== undefined) {
      // A project may narrow the list in force, never add to it: every name it adds reaches commands.
      const wanted = isProject ? sandboxValues.env.filter((name) => sandbox.env.includes(name)) : sandboxValues.env;
      const added = sandboxValues.env.filter((name) => !wanted.includes(name));
      if (added.length > 0) refuse('sandbox.env', added.join(', '), `[${sandbox.env.join(', ')}]`);
      sandbox = { ...sandbox, env: [...new Set(wanted)] };
      provenance['sandbox.env'] = origin('sandbox.env');
    }
    if (
      values.models !== undefined &&
      userOnly('models', 'compatible servers may be defined only in your user configuration, not by a project.')
    ) {
      models = values.models;
      provenance['models'] = origin('models');
    }
    if (
      values.mcpServers !== undefined &&
      userOnly(
        'mcpServers',
        'MCP servers are programs Forge starts or remote services it sends your credentials to, so they may be defined only in your user configuration, not by a project.',
      )
    ) {
      mcpServers = values.mcpServers;
      provenance['mcpServers'] = origin('mcpServers');
    }

    if (
      values.prices !== undefined &&
      userOnly(
        'prices',
        'prices may be set only in your user configuration, not by a project (they are a fact of your account, not of a repository).',
      )
    ) {
      // Per model: a later layer's entry replaces an earlier one's for that model only.
      for (const [id, entry] of Object.entries(values.prices)) {
        prices[id] = entry;
        provenance[`prices.${id}`] = origin(`prices.${id}`);
      }
    }

    const section = values.context ?? {};
    const chosen = section.compaction ?? {};
    if (
      chosen.model !== undefined &&
      userOnly(
        'context.compaction.model',
        "a compactor model receives the conversation, so only you may choose one — set it in your user configuration, or pass --compactor to 'forge compact'.",
      )
    ) {
      compaction = { ...compaction, model: chosen.model };
      provenance['context.compaction.model'] = origin('context.compaction.model');
    }
    if (chosen.strategy !== undefined) {
      if (isProject && chosen.strategy !== 'forge-state') {
        warnings.push(
          `${where}: context.compaction.strategy ${chosen.strategy} is not applied: it would send the conversation to a model for every compaction; ` +
            `keeping ${compaction.strategy} from ${describe(provenance['context.compaction.strategy'])} (a project may only choose forge-state; set other strategies in your user configuration).`,
        );
      } else {
        compaction = { ...compaction, strategy: chosen.strategy };
        provenance['context.compaction.strategy'] = origin('context.compaction.strategy');
      }
    }
    const persist = section.providerNative?.persist;
    if (persist !== undefined) {
      if (isProject && persist && !persistNative) {
        warnings.push(
          `${where}: context.providerNative.persist true is not applied: it writes the provider's compaction state (which holds your messages) to disk; ` +
            `keeping false from ${describe(provenance['context.providerNative.persist'])} (set it in your user configuration).`,
        );
      } else {
        persistNative = persist;
        provenance['context.providerNative.persist'] = origin('context.providerNative.persist');
      }
    }
    if (section.mode !== undefined) {
      if (isProject && !projectMayMove[context.mode].includes(section.mode)) {
        warnings.push(
          `${where}: context.mode ${section.mode} is not applied: it would move mode ${context.mode} from ${describe(provenance['context.mode'])} ` +
            `to one that ${section.mode === 'off' ? 'turns warnings off' : 'builds or installs checkpoints'}; keeping ${context.mode} (a project may only move the mode toward warn).`,
        );
      } else {
        context.mode = section.mode;
        provenance['context.mode'] = origin('context.mode');
      }
    }
    // A project may only tighten: `looser` says when its value would loosen the one in force.
    const tighten = <K extends string, V extends number | boolean>(
      target: Record<K, V>,
      fields: readonly K[],
      looser: (wanted: V, current: V) => boolean,
      wantedValues: Partial<Record<K, V>>,
    ) => {
      for (const field of fields) {
        const wanted = wantedValues[field];
        if (wanted === undefined) continue;
        const path = `context.${field}`;
        if (isProject && looser(wanted, target[field])) refuse(path, String(wanted), String(target[field]));
        else {
          target[field] = wanted;
          provenance[path] = origin(path);
        }
      }
    };
    tighten(context, floors, (wanted, current) => wanted < current, section);
    // Offering a context tool gives the model more to do, so a project may turn one off but not on.
    tighten(contextTools, contextToolFields, (wanted: boolean, current: boolean) => wanted && !current, section);
    tighten(context, ceilings, (wanted, current) => wanted > current, section);
    // More text in hand costs tokens on every request: a project may lower these bounds, not raise them.
    for (const field of workingSetFields) {
      const wanted = section.workingSet?.[field];
      if (wanted === undefined) continue;
      const path = `context.workingSet.${field}`;
      if (isProject && wanted > workingSet[field]) refuse(path, String(wanted), String(workingSet[field]));
      else {
        workingSet[field] = wanted;
        provenance[path] = origin(path);
      }
    }
  }

  return {
    config: {
      ...(model === undefined ? {} : { model }),
      approval: { profile: approval },
      secrets: { env: secrets },
      sandbox,
      models,
      mcpServers,
      prices,
      context,
      contextTools,
      compaction,
      providerNative: { persist: persistNative },
      workingSet,
    },
    provenance,
    warnings,
  };
}
