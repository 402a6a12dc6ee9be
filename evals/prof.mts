import { loadFixtureFile, expandFixture, runFixture, selectModes } from '@forge/evals';
const f = await loadFixtureFile('/tmp/onefix/realistic-1m-fifth.json');
const mode = process.argv[2] ?? 'warn';
const t = performance.now();
const run = await runFixture({ fixture: expandFixture(f.fixture), mode: selectModes([mode])[0]! });
console.log(mode, ((performance.now() - t) / 1000).toFixed(1), 's', run.requests.length, 'requests');
