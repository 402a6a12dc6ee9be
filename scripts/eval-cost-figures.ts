/**
 * Prints the priced figures of one or more `forge eval --json` reports: per mode, input tokens,
 * cached %, priced cost and compactions (summed over fixtures, per agent), and for each long
 * fixture the cost of compact:forge-state relative to the whole history, baseline:user-summary
 * and compact:provider-native.
 *
 *   node apps/cli/bin/forge.js eval --suite realistic --json > openai.json
 *   node apps/cli/bin/forge.js eval --suite realistic --prices deepseek --json > deepseek.json
 *   npx tsx scripts/eval-cost-figures.ts openai.json deepseek.json
 */
import { readFileSync } from 'node:fs';
import type { EvalReport, FixtureModeMetrics } from '@forge/evals';

const pad = (text: string, width: number, left = false) => (left ? text.padEnd(width) : text.padStart(width));

function printReport(report: EvalReport): void {
  console.log(`\n${report.source}, prices ${report.priceSheet.name}`);
  console.log(
    `${pad('agent', 12, true)}${pad('mode', 26, true)}${pad('input', 12)}${pad('cached', 8)}${pad('cost', 10)}${pad('compactions', 13)}${pad('pass', 7)}`,
  );
  const keys = [...new Set(report.results.map((result) => `${result.agent}\u0000${result.mode}`))];
  for (const key of keys) {
    const [agent, mode] = key.split('\u0000') as [string, string];
    const mine = report.results.filter((result) => result.agent === agent && result.mode === mode);
    const sum = (pick: (result: FixtureModeMetrics) => number) =>
      mine.reduce((total, result) => total + pick(result), 0);
    const provider = sum((result) => result.providerInputTokens);
    const cached =
      provider === 0 ? '–' : `${((100 * sum((result) => result.cachedInputTokens)) / provider).toFixed(1)}%`;
    console.log(
      `${pad(agent, 12, true)}${pad(mode, 26, true)}${pad(sum((result) => result.inputTokens).toLocaleString('en-US'), 12)}${pad(cached, 8)}${pad(`$${sum((result) => result.cost.totalUsd).toFixed(4)}`, 10)}${pad(String(sum((result) => result.compactions)), 13)}${pad(`${mine.filter((result) => result.passed).length}/${mine.length}`, 7)}`,
    );
  }
  const agent = report.results[0]?.agent;
  console.log(`\nforge-state cost relative to other modes, long fixtures (agent ${agent}):`);
  for (const fixture of new Set(report.results.filter((result) => result.long).map((result) => result.fixture))) {
    const of = (mode: string) =>
      report.results.find((result) => result.fixture === fixture && result.mode === mode && result.agent === agent);
    const own = of('compact:forge-state');
    if (own === undefined) continue;
    const ratio = (mode: string) => {
      const other = of(mode);
      return other === undefined || other.cost.totalUsd === 0
        ? '–'
        : `${(own.cost.totalUsd / other.cost.totalUsd).toFixed(2)}×${other.passed ? '' : ' (it fails)'}`;
    };
    console.log(
      `  ${fixture} (fill ${own.windowFill.toFixed(2)}): $${own.cost.totalUsd.toFixed(4)}; vs full history ${ratio('baseline:full-history')}, vs user-summary ${ratio('baseline:user-summary')}, vs provider-native ${ratio('compact:provider-native')}`,
    );
  }
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npx tsx scripts/eval-cost-figures.ts report.json [more.json …] (from forge eval --json)');
  process.exit(2);
}
for (const file of files) printReport(JSON.parse(readFileSync(file, 'utf8')) as EvalReport);
