import { forgetCalibration } from '@forge/persistence';
import { UsageError } from '../cli-error.js';
import { loadCliConfig } from '../config/cli-config.js';
import { ExitCode } from '../exit-codes.js';
import type { ModelsCalibrationResetOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/** `forge models calibration reset <model>`: forgets the usage Forge recorded for one model's token counts. */
export async function execute({
  args,
  options,
  io,
}: CommandInvocation<ModelsCalibrationResetOptions>): Promise<number> {
  const [model] = args;
  if (typeof model !== 'string' || model.length === 0)
    throw new UsageError('name the model whose calibration to reset, as --model names it (openai:gpt-5)');
  const { forgeHome } = await loadCliConfig({ io, globals: options });
  const forgotten = await forgetCalibration(forgeHome, model);
  io.stdout.write(
    forgotten
      ? `forgot the recorded usage of ${model}: its requests are counted with the raw estimate again\n`
      : `no usage is recorded for ${model}; nothing to reset (forge models list shows the calibrated models)\n`,
  );
  return ExitCode.ok;
}
