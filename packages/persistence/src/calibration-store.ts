import { join } from 'node:path';
import { writeFileAtomic } from '@forge/bounded-read';
import { implausibleSampleReason, type CalibrationSample } from '@forge/core/budget';
import { z } from 'zod';
import { ensureForgeHome, forgeHomeLayout } from './home.js';
import { CorruptFileError } from './errors.js';
import { isErrorCode, PRIVATE_FILE_MODE } from './private-fs.js';
import { readStoredFile } from './stored-file.js';

/*
 * FORGE_HOME/calibration.json: for each model, the token estimates Forge made before sending
 * requests beside the input the provider reported for them — numbers only, never message text.
 * Bounded (the newest samples per model, the most recently used models), 0600 in the 0700
 * FORGE_HOME, replaced atomically. Two processes recording at the same moment may lose one
 * batch of samples to each other; never the file.
 */

const CALIBRATION_SCHEMA_VERSION = 1 as const;
export const MAX_CALIBRATION_SAMPLES = 200;
export const MAX_CALIBRATED_MODELS = 64;
/** Far above what the bounds above produce; a larger file is not read, and calibration is relearned. */
const MAX_CALIBRATION_FILE_BYTES = 1024 * 1024;

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const modelEntrySchema = z.strictObject({
  /** What produced the estimates (`deepseek-v3`, `conservative`, a tokenizer path, with any configured scale); a different counter starts a new history. */
  counter: z.string(),
  updatedAt: z.string(),
  /** `[estimated, reported]` pairs, oldest first. */
  samples: z.array(z.tuple([count, count])).max(MAX_CALIBRATION_SAMPLES),
});

const calibrationFileSchema = z.strictObject({
  schemaVersion: z.literal(CALIBRATION_SCHEMA_VERSION),
  models: z.record(z.string(), modelEntrySchema),
});

type CalibrationFile = z.infer<typeof calibrationFileSchema>;

/** One model's history: the counter it measures and its samples, oldest first. */
export interface ModelCalibration {
  readonly counter: string;
  readonly updatedAt: string;
  readonly samples: readonly CalibrationSample[];
}

export function calibrationFilePath(home: string): string {
  return join(forgeHomeLayout(home).root, 'calibration.json');
}

const empty = (): CalibrationFile => ({ schemaVersion: CALIBRATION_SCHEMA_VERSION, models: {} });

/**
 * The stored histories by model (`provider:modelId`). A missing file is empty; so is one that
 * cannot be trusted (torn by hand, another version): calibration is relearned, never fatal.
 */
export async function readCalibration(home: string): Promise<ReadonlyMap<string, ModelCalibration>> {
  return toMap(await readFileOrEmpty(home));
}

async function readFileOrEmpty(home: string): Promise<CalibrationFile> {
  let text: string;
  try {
    text = (await readStoredFile(calibrationFilePath(home), { maxBytes: MAX_CALIBRATION_FILE_BYTES })).toString('utf8');
  } catch (error) {
    // Not there, not a regular file (which would stall the read) or too large: relearned, like an untrusted one.
    if (isErrorCode(error, 'ENOENT') || CorruptFileError.isInstance(error)) return empty();
    throw error;
  }
  try {
    const parsed = calibrationFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : empty();
  } catch {
    return empty();
  }
}

function toMap(file: CalibrationFile): Map<string, ModelCalibration> {
  return new Map(
    Object.entries(file.models).map(([model, entry]) => [
      model,
      {
        counter: entry.counter,
        updatedAt: entry.updatedAt,
        samples: entry.samples.map(([estimated, reported]) => ({ estimated, reported })),
      },
    ]),
  );
}

/**
 * Appends `samples` to `model`'s history (a new history when `counter` changed), keeps the newest
 * {@link MAX_CALIBRATION_SAMPLES} and the {@link MAX_CALIBRATED_MODELS} most recently updated
 * models, and replaces the file atomically. An impossible sample (see `implausibleSampleReason`) is
 * never stored. Returns the model's history as stored.
 */
export async function recordCalibration(
  home: string,
  update: {
    readonly model: string;
    readonly counter: string;
    readonly samples: readonly CalibrationSample[];
    readonly now?: Date;
  },
): Promise<ModelCalibration> {
  await ensureForgeHome(home);
  const file = await readFileOrEmpty(home);
  const previous = file.models[update.model];
  const kept = previous?.counter === update.counter ? previous.samples : [];
  const samples = [
    ...kept,
    ...update.samples
      .filter((sample) => implausibleSampleReason(sample) === undefined)
      .map((sample): [number, number] => [sample.estimated, sample.reported]),
  ].slice(-MAX_CALIBRATION_SAMPLES);
  const entry = { counter: update.counter, updatedAt: (update.now ?? new Date()).toISOString(), samples };
  const models = Object.entries({ ...file.models, [update.model]: entry })
    .sort(([, left], [, right]) => right.updatedAt.localeCompare(left.updatedAt))
    .slice(0, MAX_CALIBRATED_MODELS);
  const next: CalibrationFile = { schemaVersion: CALIBRATION_SCHEMA_VERSION, models: Object.fromEntries(models) };
  await writeFileAtomic(calibrationFilePath(home), `${JSON.stringify(next)}\n`, {
    mode: PRIVATE_FILE_MODE,
    syncDirectory: true,
  });
  return {
    counter: entry.counter,
    updatedAt: entry.updatedAt,
    samples: samples.map(([estimated, reported]) => ({ estimated, reported })),
  };
}

/** Removes `model`'s history from the file; false when it had none. */
export async function forgetCalibration(home: string, model: string): Promise<boolean> {
  const file = await readFileOrEmpty(home);
  if (!(model in file.models)) return false;
  const { [model]: _forgotten, ...models } = file.models;
  await writeFileAtomic(calibrationFilePath(home), `${JSON.stringify({ ...file, models })}\n`, {
    mode: PRIVATE_FILE_MODE,
    syncDirectory: true,
  });
  return true;
}
