import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EvalReport } from '../run/run-eval.js';
import { renderHtmlReport } from './html-report.js';
import { renderMarkdownReport } from './markdown-report.js';

/** The files `writeReportDirectory` writes. */
export interface WrittenReport {
  readonly markdown: string;
  readonly html: string;
  readonly json: string;
}

/** Writes `report.md`, `report.html` (self-contained, with charts) and `report.json` into `directory`. */
export async function writeReportDirectory(directory: string, report: EvalReport): Promise<WrittenReport> {
  await mkdir(directory, { recursive: true });
  const files = {
    markdown: path.join(directory, 'report.md'),
    html: path.join(directory, 'report.html'),
    json: path.join(directory, 'report.json'),
  };
  await writeFile(files.markdown, renderMarkdownReport(report));
  await writeFile(files.html, renderHtmlReport(report));
  await writeFile(files.json, `${JSON.stringify(report, null, 2)}\n`);
  return files;
}
