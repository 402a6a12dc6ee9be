export { main } from './main.js';
export { ExitCode } from './exit-codes.js';
export { CliError, UsageError } from './cli-error.js';
export type { CliIo, CliInput, CliOutput } from './io.js';
export type {
  CommandEntry,
  CommandGroup,
  CommandInvocation,
  CommandModule,
  GlobalOptions,
} from './commands/command.js';
export type { ModelProvider, ModelProviderContext } from './models/resolve-model.js';
