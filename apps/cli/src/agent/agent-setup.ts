import type { ContextPolicy, InstructionSnapshot, Message, ModelAdapter } from '@forge/core';
import type { CompactionStrategySetting } from '@forge/core/compaction';
import type { ElicitationHandler, McpServers } from '@forge/mcp';
import { sessionCompaction, type SessionCompactionOptions } from '@forge/sessions';
import { assembleAgent, type Agent, type AgentSurface, type ContextToolSettings, type SessionSize } from '@forge/agent';
import type { ConfirmCallback } from '@forge/tools';
import type { GlobalOptions } from '../commands/command.js';
import type { ContextSubject } from '../context/context-report.js';
import { loadCliConfig } from '../config/cli-config.js';
import { configuredModelError } from '../config/configured-model-error.js';
import type { CliIo } from '../io.js';
import { CalibrationHub } from '@forge/agent';
import { calibrationReportOf, type CalibrationReport } from '../models/calibration-report.js';
import { configuredPriceSheets } from '../models/configured-prices.js';
import { calibrationIdentity, modelCatalogue } from '@forge/agent';
import { unknownModelWarning } from '../models/unknown-model-warning.js';
import { DEFAULT_MODEL, resolveModel } from '../models/resolve-model.js';
import { configuredStrategy } from '../session/compaction-settings.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import { configuredSandbox } from './command-sandbox.js';
import { startConfiguredMcpServers } from './mcp-servers.js';
import { resolveWorkspaceRoot } from './workspace.js';

/** Everything a run needs besides the request: the parts `forge run` and the REPL share. */
export interface AgentSetup {
  readonly root: string;
  /** The assembled agent (tools, read ledger, approvals, instructions); `forge eval` assembles its agent the same way. */
  readonly agent: Agent;
  readonly modelName: string;
  readonly model: ModelAdapter;
  /** Which context tools the configuration allows (`context.checkpointNote`, `context.requestCompaction`). */
  readonly contextTools: ContextToolSettings;
  /**
   * What a run with `model` and `context` offers the model: `tools`, the context tools its session
   * adds once it is big enough (`sessionSurface`), and the system prompt describing them. A run
   * without a session (`session` undefined, `--no-session`) gets no context tools.
   */
  surface(session: SessionSize | undefined, model?: ModelAdapter, context?: ContextPolicy): Promise<AgentSurface>;
  /** Loads the instructions of a run offering `surface` afresh; runAgent calls it once per run and freezes the result. */
  instructions(surface: AgentSurface): () => Promise<InstructionSnapshot>;
  readonly maxSteps: number | undefined;
  /** The context policy of the configuration (`context`), flags included. */
  readonly context: ContextPolicy;
  /** Resolves another model id the way `--model` is resolved (for `/model`, which `chooseWith` then names in errors). */
  readonly resolveModel: (name: string, chooseWith?: string) => Promise<ModelAdapter>;
  /** The MCP servers this setup started; closed with the engine. */
  readonly mcp: McpServers | undefined;
  /** Each model's estimate-versus-usage history, applied to its estimates and learned from runs. */
  readonly calibration: CalibrationHub;
  /** The calibration of a model named as `--model` names it; undefined for models of no real provider. */
  readonly calibrationOf: (name: string) => Promise<CalibrationReport | null | undefined>;
  /**
   * How sessions compact (`context.compaction`, `context.providerNative`), resolved on first use so
   * commands that only measure never resolve a compactor; `strategy` overrides the configured one
   * (`forge compact --strategy`).
   */
  readonly compaction: (strategy?: CompactionStrategySetting) => Promise<SessionCompactionOptions>;
}

/** The configured model and what resolving models needs; see {@link resolveConfiguredModel}. */
export interface ConfiguredModel {
  readonly modelName: string;
  readonly model: ModelAdapter;
  readonly resolve: (name: string, chooseWith?: string) => Promise<ModelAdapter>;
  readonly calibration: CalibrationHub;
  readonly config: Awaited<ReturnType<typeof loadCliConfig>>['loaded']['config'];
  readonly provenance: Awaited<ReturnType<typeof loadCliConfig>>['loaded']['provenance'];
  readonly userFile: string;
}

/**
 * Resolves model ids as `--model` is resolved under `loaded` (its compatible servers and prices),
 * without calibration: what `forge config validate` checks the configured ids with.
 */
export function configuredModelResolver(input: {
  readonly io: CliIo;
  readonly loaded: Awaited<ReturnType<typeof loadCliConfig>>['loaded'];
  readonly purpose?: 'run' | 'measure';
}): (name: string, chooseWith?: string) => Promise<ModelAdapter> {
  const { io, loaded } = input;
  const prices = configuredPriceSheets(loaded.config, loaded.provenance);
  return (name, chooseWith) =>
    resolveModel(name, {
      env: io.env,
      compatibleModels: loaded.config.models,
      userConfigFile: loaded.files.user,
      prices,
      fallbackContextWindowTokens: loaded.config.context.fallbackContextWindowTokens,
      anthropicCacheLifetime: loaded.config.anthropic.cacheLifetime,
      ...(input.purpose === undefined ? {} : { purpose: input.purpose }),
      ...(io.modelProviders === undefined ? {} : { extraProviders: io.modelProviders }),
      ...(chooseWith === undefined ? {} : { chooseWith }),
    });
}

/**
 * What a user is told when the workspace's `.forge/config.json` chose the model: a repository may
 * suggest one, but never switch it silently (it decides whose key is used and what is spent).
 */
export function projectModelNotice(modelName: string, file: string): string {
  return `the model ${modelName} is chosen by the project file ${file}, not by your configuration; pass --model to choose another, or remove "model" from that file`;
}

/**
 * The configured model (`--model`, else the configured one, else scripted:demo), its estimates
 * calibrated from usage, without tools or MCP servers: what commands that only count use
 * (`forge checkpoint show`), and what {@link prepareAgent} builds on. `measure`: the model only
 * estimates, so it needs no API key.
 */
export async function resolveConfiguredModel(options: {
  readonly io: CliIo;
  readonly globals: GlobalOptions;
  readonly purpose?: 'run' | 'measure';
}): Promise<ConfiguredModel> {
  const { io, globals } = options;
  const { forgeHome, loaded } = await loadCliConfig({ io, globals });
  const { config } = loaded;
  const calibration = new CalibrationHub({
    forgeHome,
    bufferTokens: config.context.bufferTokens,
    notice: (line) => io.stderr.write(`forge: note: ${line}\n`),
  });
  const resolveUncalibrated = configuredModelResolver({
    io,
    loaded,
    ...(options.purpose === undefined ? {} : { purpose: options.purpose }),
  });
  const resolve = async (name: string, chooseWith?: string) => {
    const adapter = await resolveUncalibrated(name, chooseWith);
    const identity = calibrationIdentity(name, config.models);
    const catalogue = modelCatalogue(config.models, loaded.files.user);
    const warning = unknownModelWarning({ name, model: adapter, counter: identity?.counter, catalogue });
    if (warning !== undefined) io.stderr.write(`forge: warning: ${warning}\n`);
    return identity === undefined ? adapter : calibration.wrap(adapter, identity);
  };
  const modelName = config.model ?? DEFAULT_MODEL;
  const reference = { key: 'model', value: modelName, provenance: loaded.provenance.model };
  const model = await resolve(modelName).catch((error: unknown) => {
    throw configuredModelError(error, reference);
  });
  const { provenance } = loaded;
  const origin = provenance.model;
  if (origin?.source === 'project')
    io.stderr.write(`forge: warning: ${projectModelNotice(modelName, origin.file ?? 'the project configuration')}\n`);
  return { modelName, model, resolve, calibration, config, provenance, userFile: loaded.files.user };
}

/**
 * Resolves the global options and the configuration into a ready agent: checks `--cwd`, resolves
 * the model (`--model`, else the configured one, else scripted:demo; usage errors for bad ids and
 * missing keys), creates the workspace tools with one read ledger for the session and the
 * configured sandbox, starts the configured MCP servers (outside the sandbox, as configured), and
 * creates the approval gate of the configured profile.
 */
export async function prepareAgent(options: {
  readonly io: CliIo;
  readonly globals: GlobalOptions;
  readonly confirm?: ConfirmCallback;
  /** `measure`: the model only estimates (`forge context`), so it needs no API key. */
  readonly purpose?: 'run' | 'measure';
  /** Asks the user what an MCP server requests (the REPL); without it such requests are declined. */
  readonly elicit?: ElicitationHandler;
}): Promise<AgentSetup> {
  const { io, globals } = options;
  const root = await resolveWorkspaceRoot(io.cwd, globals.cwd);
  const { modelName, model, resolve, calibration, config, provenance, userFile } =
    await resolveConfiguredModel(options);
  const sandbox = configuredSandbox({ root, config, io });
  const { forgeHome } = await loadCliConfig({ io, globals });
  let mcp: McpServers | undefined;
  const agent = await assembleAgent({
    root,
    workspaceTools: { sandbox },
    approvals: {
      profile: config.approval.profile,
      sandbox: sandbox.status,
      ...(options.confirm === undefined ? {} : { confirm: options.confirm }),
    },
    extraTools: async (reservedToolNames) => {
      mcp = await startConfiguredMcpServers({
        configs: config.mcpServers,
        io,
        forgeHome,
        reservedToolNames,
        ...(options.elicit === undefined ? {} : { elicit: options.elicit }),
      });
      // Read anew for every turn: an MCP server whose tools changed offers the new set from the next turn on.
      return () => mcp?.tools ?? [];
    },
    contextTools: config.contextTools,
    warn: (message) => io.stderr.write(`forge: warning: ${message}\n`),
  });
  let configured: Promise<SessionCompactionOptions> | undefined;
  const compaction = async (strategy?: CompactionStrategySetting): Promise<SessionCompactionOptions> => {
    const { forgeHome } = await loadCliConfig({ io, globals });
    const { redactor } = await resolveSessionSettings({ io, globals });
    const build = async (chosen: CompactionStrategySetting) =>
      sessionCompaction({ config, forgeHome, redactor, strategy: chosen });
    if (strategy !== undefined) return build(strategy);
    configured ??= configuredStrategy(config.compaction, resolve, provenance).then(build);
    return configured;
  };
  return {
    root,
    modelName,
    model,
    agent,
    contextTools: config.contextTools,
    surface: (session, surfaceModel = model, policy = config.context) => agent.surface(session, surfaceModel, policy),
    instructions: agent.instructions,
    maxSteps: globals.maxSteps,
    context: config.context,
    resolveModel: resolve,
    compaction,
    mcp,
    calibration,
    calibrationOf: (name) => calibrationReportOf(calibration, name, config.models, userFile),
  };
}

/**
 * What the next stored turn of `session` would send besides its history, for `forge context` and
 * `/context`: every advertised tool (the context tools included once the session offers them) and
 * the instructions with the matching system prompt. A new conversation is an empty session.
 */
export async function contextSubjectOf(
  setup: AgentSetup,
  session: SessionSize = { messages: [], runs: [] },
  model: ModelAdapter = setup.model,
  context: ContextPolicy = setup.context,
): Promise<ContextSubject> {
  const surface = await setup.surface(session, model, context);
  return { model, tools: surface.advertised, instructions: setup.instructions(surface), context };
}

/**
 * What {@link sessionSurface} reads of a stored session handle: its messages and its runs, read
 * only if asked for (a handle opened as a window reads its whole log for them), and what is in
 * memory, which is often enough to decide.
 */
export function sessionSizeOf(handle: {
  readonly messages: readonly Message[];
  transcript(): { readonly runs: SessionSize['runs'] };
  readonly loaded: LoadedSessionPart;
}): SessionSize {
  const { loaded } = handle;
  return {
    get messages() {
      return handle.messages;
    },
    get runs() {
      return handle.transcript().runs;
    },
    ...(loaded.firstMessage === 0 ? {} : { recent: recentParts(loaded) }),
  };
}

/** What a session opened as a window holds (see `SessionWriter.loaded`). */
export interface LoadedSessionPart {
  readonly firstMessage: number;
  readonly messages: readonly Message[];
  readonly runs: SessionSize['runs'];
  readonly before?: (bytes: number) => readonly Message[] | undefined;
}

/** Bytes of the log before a window read for each longer recent part, in turn. */
const RECENT_PART_BYTES = [256 * 1024, 2 * 1024 * 1024, 16 * 1024 * 1024];

/** The window's messages, then with more and more of the messages recorded before it (read only as asked for). */
export function* recentParts(loaded: LoadedSessionPart): Generator<Pick<SessionSize, 'messages' | 'runs'>> {
  yield { messages: loaded.messages, runs: loaded.runs };
  for (const bytes of RECENT_PART_BYTES) {
    const earlier = loaded.before?.(bytes);
    if (earlier === undefined) return;
    // From a user message on: a part starting inside a group (a tool result without its call) is not a request.
    const from = earlier.findIndex((message) => message.role === 'user');
    if (from !== -1) yield { messages: [...earlier.slice(from), ...loaded.messages], runs: loaded.runs };
    if (earlier.length === loaded.firstMessage) return;
  }
}
