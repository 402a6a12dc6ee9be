export {
  approvalLevel,
  approvalProfiles,
  createApprovalGate,
  escalationGrant,
  type ApprovalGateOptions,
  type ApprovalLevel,
  type ApprovalProfile,
  type ConfirmAnswer,
  type ConfirmCallback,
  type SessionApprovalGate,
} from './approval.js';
export { createWorkspaceTools, type WorkspaceToolsOptions } from './create-workspace-tools.js';
export { HeadTailBuffer, type ProcessOutcome, type RunProcessOptions } from './run-process.js';
export { displayPath } from './display-path.js';
export {
  DEFAULT_INSTRUCTION_FILE_BYTES,
  INSTRUCTIONS_FILE_NAME,
  loadInstructions,
  type LoadInstructionsOptions,
} from './instructions.js';
export { changedLineCounts, diffLines, unifiedDiff, type DiffLine } from './line-diff.js';
export { ReadLedger, type WorkingSetSight } from './read-ledger.js';
export { waitForRunningCommands } from './run-process.js';
export { COMMAND_MARKER_VARIABLE, CommandProcesses, type StrayProcesses } from './command-processes.js';
export { createEditFileTool, type EditFileToolOptions } from './tools/edit-file.js';
export { createListFilesTool, type ListFilesToolOptions } from './tools/list-files.js';
export { createReadFileTool, DEFAULT_READ_CAP_BYTES, type ReadFileToolOptions } from './tools/read-file.js';
export {
  createRunCommandTool,
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_OUTPUT_CAP_BYTES,
  type RunCommandToolOptions,
} from './tools/run-command.js';
export { createSearchTool, type SearchToolOptions } from './tools/search.js';
export { resolveWorkspacePath, WorkspacePathError, type WorkspacePath, type WorkspacePathRule } from './workspace.js';
export {
  hashWorkspaceFile,
  workspaceArtifactHashes,
  type WorkspaceFileHash,
  type WorkspaceHashSource,
} from './workspace-hashes.js';
export {
  createCommandSandbox,
  detectEnforcement,
  type CommandSandbox,
  type CommandSandboxOptions,
  type SandboxEnforcement,
  type SandboxLaunch,
  type SandboxLaunchRequest,
  type SandboxStatus,
} from './sandbox/command-sandbox.js';
export { BUBBLEWRAP_INSTALL_HINT } from './sandbox/bubblewrap.js';
export { commandEnvironment, isWithheldVariable } from './sandbox/command-environment.js';
export {
  DEFAULT_SANDBOX_SETTINGS,
  PROTECTED_WORKSPACE_ENTRIES,
  SANDBOX_ESCAPES,
  SANDBOX_MODES,
  type SandboxEscape,
  type SandboxMode,
  type SandboxSettings,
} from './sandbox/sandbox-settings.js';
export { seatbeltProfile } from './sandbox/seatbelt.js';
export { readWorkingSetFiles } from './working-set-files.js';
