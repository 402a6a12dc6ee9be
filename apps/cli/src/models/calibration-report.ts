import type { CompatibleModelEntry } from '@forge/config';
import type { CalibrationHub, CalibrationView } from '@forge/agent';
import { calibrationIdentity } from '@forge/agent';

/** A model's calibration as `--json` output carries it; `null` in the output when nothing was recorded. */
export interface CalibrationReport {
  readonly samples: number;
  readonly meanErrorPercent: number;
  readonly worstErrorPercent: number;
  readonly worstRatio: number;
  readonly correctionRatio: number;
  readonly ignoredSamples: number;
  readonly undercountsBeyondBuffer: number;
  /** Set when automatic budgeting scales this model's estimates (they undercounted beyond the buffer). */
  readonly appliedCorrection?: number;
  /** A measured correction offered for a consistently overcounting conservative estimate: the key to set and its value. */
  readonly offer?: { readonly key: string; readonly value: number; readonly file: string };
}

/** `view` for output; `configPath` (`models.0`) and `configFile` name where an offered scale would be set. */
export function calibrationReport(
  view: CalibrationView,
  where: { readonly configPath?: string; readonly configFile: string },
): CalibrationReport | null {
  const { summary } = view;
  if (summary === undefined) return null;
  return {
    ...summary,
    ...(view.correction === undefined ? {} : { appliedCorrection: view.correction }),
    ...(view.offeredScale === undefined || where.configPath === undefined
      ? {}
      : { offer: { key: `${where.configPath}.estimateScale`, value: view.offeredScale, file: where.configFile } }),
  };
}

const signed = (value: number): string => `${value > 0 ? '+' : value < 0 ? '−' : ''}${Math.abs(value).toFixed(1)}%`;

/** One line: sample count, mean and worst error, and what is applied or offered. */
export function calibrationLine(report: CalibrationReport | null): string {
  if (report === null) return 'no provider usage recorded yet';
  const ignored =
    report.ignoredSamples > 0
      ? ` (${report.ignoredSamples} impossible report${report.ignoredSamples === 1 ? '' : 's'} ignored)`
      : '';
  const base = `${report.samples} request${report.samples === 1 ? '' : 's'}${ignored}: mean error ${signed(report.meanErrorPercent)}, worst ${signed(report.worstErrorPercent)}`;
  if (report.appliedCorrection !== undefined)
    return `${base}; undercounted beyond the buffer, so budgeting uses estimates × ${report.appliedCorrection}`;
  if (report.offer !== undefined)
    return `${base}; consistently high: set ${report.offer.key} to ${report.offer.value} in ${report.offer.file} to count closer`;
  return base;
}

/**
 * The calibration report of model `name` from `hub`, pointing a compatible server's correction at
 * its `models.<index>` entry in `configFile`; undefined for a model that is never calibrated.
 */
export async function calibrationReportOf(
  hub: CalibrationHub,
  name: string,
  models: readonly CompatibleModelEntry[],
  configFile: string,
): Promise<CalibrationReport | null | undefined> {
  const identity = calibrationIdentity(name, models);
  if (identity === undefined) return undefined;
  const index = models.findIndex((entry) => `compatible:${entry.name}` === name);
  return calibrationReport(await hub.view(identity), {
    ...(index === -1 ? {} : { configPath: `models.${index}` }),
    configFile,
  });
}
