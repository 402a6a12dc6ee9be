import { formatTokens } from '@forge/core/budget';
import { loadCliConfig } from '../config/cli-config.js';
import { ExitCode } from '../exit-codes.js';
import { formatTable, type TextColumn } from '../inspect/text-table.js';
import { CalibrationHub } from '@forge/agent';
import { calibrationLine, calibrationReportOf, type CalibrationReport } from '../models/calibration-report.js';
import { configuredPriceSheets } from '../models/configured-prices.js';
import { modelCatalogue, type CatalogueEntry, type SourcedFigure } from '@forge/agent';
import { PRICE_COLUMN_HEADERS, priceColumns } from '../models/price-columns.js';
import { styleFor } from '../output/style.js';
import type { ModelsListOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/** One row of `forge models list --json`. */
export interface ListedModel extends CatalogueEntry {
  readonly calibration: CalibrationReport | null;
}

/*
 * The columns of the text table, each reading one listed model. A new figure (a price per million
 * tokens, say) is one more entry here and one more field on the catalogue entry.
 */
const columns: readonly (TextColumn & {
  readonly cell: (model: ListedModel, source: (figure: SourcedFigure | undefined) => string) => string;
})[] = [
  { header: 'MODEL', cell: (model) => model.id },
  {
    header: 'WINDOW',
    align: 'right',
    cell: (model, source) => `${formatTokens(model.contextWindowTokens.value)}${source(model.contextWindowTokens)}`,
  },
  {
    header: 'OUTPUT',
    align: 'right',
    cell: (model, source) =>
      model.maxOutputTokens === undefined
        ? '—'
        : `${formatTokens(model.maxOutputTokens.value)}${source(model.maxOutputTokens)}`,
  },
  {
    header: 'INPUT CAP',
    align: 'right',
    cell: (model, source) =>
      model.maxInputTokens === undefined
        ? '—'
        : `${formatTokens(model.maxInputTokens.value)}${source(model.maxInputTokens)}`,
  },
  {
    header: 'COUNTED BY',
    cell: (model, source) =>
      `${model.counting.method === 'provider-tokenizer' ? `exact: ${model.counting.counter}` : 'conservative estimate'}${source({ value: 0, source: model.counting.source })}`,
  },
  { header: 'CALIBRATION', cell: (model) => (model.calibration === null ? '—' : calibrationLine(model.calibration)) },
  // Per million tokens; the source mark names the prices' date and origin.
  {
    header: PRICE_COLUMN_HEADERS[0],
    align: 'right',
    cell: (model, source) => {
      const cells = priceColumns(model.prices);
      return model.prices === undefined
        ? cells.input
        : `${cells.input}${source({ value: 0, source: `prices: ${cells.source}` })}`;
    },
  },
  { header: PRICE_COLUMN_HEADERS[1], align: 'right', cell: (model) => priceColumns(model.prices).cached },
  { header: PRICE_COLUMN_HEADERS[2], align: 'right', cell: (model) => priceColumns(model.prices).cacheWrite },
  { header: PRICE_COLUMN_HEADERS[3], align: 'right', cell: (model) => priceColumns(model.prices).output },
];

/**
 * `forge models list [--json]`: every model of the capability tables and every configured
 * compatible server, with window, output limit, input cap, how requests are counted, the
 * calibration measured from provider usage, the prices per million tokens (configured ones
 * replacing the table's), and where each figure came from. Needs no API key.
 */
export async function execute({ options, io }: CommandInvocation<ModelsListOptions>): Promise<number> {
  const { forgeHome, loaded } = await loadCliConfig({ io, globals: options });
  const { config } = loaded;
  const hub = new CalibrationHub({ forgeHome, bufferTokens: config.context.bufferTokens, notice: () => {} });
  const models: ListedModel[] = [];
  for (const entry of modelCatalogue(
    config.models,
    loaded.files.user,
    configuredPriceSheets(config, loaded.provenance),
  )) {
    const calibration = (await calibrationReportOf(hub, entry.id, config.models, loaded.files.user)) ?? null;
    models.push({ ...entry, calibration });
  }
  if (options.json === true) {
    io.stdout.write(`${JSON.stringify({ models })}\n`);
    return ExitCode.ok;
  }
  const sources: string[] = [];
  const mark = (figure: SourcedFigure | undefined): string => {
    if (figure === undefined) return '';
    let index = sources.indexOf(figure.source);
    if (index === -1) index = sources.push(figure.source) - 1;
    return ` [${index + 1}]`;
  };
  const style = styleFor(io.stdout, io.env);
  const rows = models.map((model) => columns.map((column) => column.cell(model, mark)));
  const lines = formatTable({ columns, rows, indent: '', paintHeader: (text) => style.bold(text) });
  const legend = sources.map((source, index) => `  [${index + 1}] ${source}`);
  const hint =
    config.models.length === 0
      ? [
          '',
          style.dim(
            'No compatible servers configured: add one to "models" in the user configuration (see docs/configuration.md).',
          ),
        ]
      : [];
  io.stdout.write(`${[...lines, '', 'Sources:', ...legend, ...hint].join('\n')}\n`);
  return ExitCode.ok;
}
