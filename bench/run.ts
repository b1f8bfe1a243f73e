/**
 * The benchmark suite: every speed or quality claim comes from here, measured in one run on one
 * machine, with baselines (raw onnxruntime, exact k-NN, @modelcontextprotocol/server-memory,
 * BM25) measured in the same run.
 *
 *   npm run bench                                  # default suite (see bench/PERFORMANCE.md)
 *   npm run bench -- --quick                       # small sizes, for development
 *   npm run bench -- --parts quality,index --sizes 1000,10000 --seed 7
 *
 * Parts: write, onnx, read, memory, index, peer, quality, locomo, curation, import, navigation, dreams (skipped with a message when
 * its data file is absent). Writes bench/results/<date>/ (results.json, summary.md, *.svg) and
 * shows progress on stderr.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../src/paths.js';
import { log, machine } from './env.js';
import { runCuration } from './part-curation.js';
import { runDreams } from './part-dreams.js';
import { renderImportSummary, runImportBench, type ImportBenchResult } from './part-import.js';
import { runIndex } from './part-index.js';
import { runLocomo } from './part-locomo.js';
import { runNavigation } from './part-navigation.js';
import { runOnnx } from './part-onnx.js';
import { runPeer } from './part-peer.js';
import { runQuality } from './part-quality.js';
import { runScale } from './part-scale.js';
import { renderCharts, renderSummary, type Report } from './report.js';

const ALL_PARTS = ['write', 'onnx', 'read', 'memory', 'index', 'peer', 'quality', 'locomo', 'curation', 'import', 'navigation', 'dreams'];
/**
 * Every part runs by default: `locomo` takes ≈ 2 min on 2 cores (bench/PERFORMANCE.md), within
 * the ~3 min a default part may take, and skips itself on machines without the data.
 */
const DEFAULT_PARTS = ALL_PARTS.filter((p) => p !== 'navigation' && p !== 'dreams');
/** Relative to the package root (the shared data folder beside the checkouts); an explicit --locomo is relative to the working directory. */
const DEFAULT_LOCOMO = '../shared/data/locomo-dev.json';

const { values } = parseArgs({
  options: {
    parts: { type: 'string', default: DEFAULT_PARTS.join(',') },
    quick: { type: 'boolean', default: false },
    sizes: { type: 'string' },
    'mcp-sizes': { type: 'string' },
    'store-samples': { type: 'string' },
    queries: { type: 'string' },
    rounds: { type: 'string' },
    clients: { type: 'string' },
    'index-size': { type: 'string' },
    'index-queries': { type: 'string' },
    depths: { type: 'string' },
    'index-datasets': { type: 'string' },
    'peer-sizes': { type: 'string' },
    'peer-window': { type: 'string' },
    'quality-distractors': { type: 'string' },
    'quality-per-category': { type: 'string' },
    'onnx-texts': { type: 'string' },
    locomo: { type: 'string' },
    'locomo-limit': { type: 'string' },
    'navigation-sizes': { type: 'string' },
    'round-budget-s': { type: 'string' },
    'curation-sizes': { type: 'string' },
    'curation-samples': { type: 'string' },
    'import-size': { type: 'string' },
    'import-sizes': { type: 'string' },
    'import-baseline': { type: 'string' },
    'import-baseline-max': { type: 'string' },
    compare: { type: 'string' },
    seed: { type: 'string', default: '42' },
    out: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  process.stdout.write(`npm run bench -- [--quick] [--parts ${ALL_PARTS.join(',')}] [--sizes 1000,10000,100000] [--mcp-sizes 10000,100000]
  [--store-samples 100] [--queries 200] [--rounds 3] [--clients 1,4,16] [--index-size 100000] [--index-queries 500]
  [--depths 16,32,64,128,256] [--index-datasets e1-hash,low-rank] [--peer-sizes 500,1000,2000] [--peer-window 100]
  [--quality-distractors 2000] [--quality-per-category 40] [--onnx-texts 2000] [--round-budget-s 10] [--import-sizes 10000,100000] [--import-baseline ../checkout] [--import-baseline-max 10000] [--seed 42] [--out DIR]
  [--compare bench/results/<earlier run>/results.json]
  [--locomo ${DEFAULT_LOCOMO}] [--locomo-limit N] [--curation-sizes 10000,100000] [--curation-samples 100]
Default parts: ${DEFAULT_PARTS.join(',')}.
`);
  process.exit(0);
}

const quick = values.quick!;
const list = (s: string | undefined, d: string) => (s ?? d).split(',').filter(Boolean).map(Number);
const num = (s: string | undefined, full: number, small: number) => Number(s ?? (quick ? small : full));
const parts = new Set(values.parts!.split(',').map((p) => p.trim()));
for (const p of parts) if (!ALL_PARTS.includes(p)) throw new Error(`unknown part ${p}; known: ${ALL_PARTS.join(', ')}`);
const seed = Number(values.seed);
const sizes = list(values.sizes, quick ? '1000,3000' : '1000,10000,100000');
const settings = {
  seed,
  quick,
  parts: [...parts],
  sizes,
  mcp_sizes: list(values['mcp-sizes'], sizes.filter((s) => s >= 10_000).join(',') || String(Math.max(...sizes))),
  store_samples: num(values['store-samples'], 100, 30),
  queries: num(values.queries, 200, 50),
  rounds: num(values.rounds, 3, 3),
  clients: list(values.clients, quick ? '1,4' : '1,4,16'),
  index_size: num(values['index-size'], 100_000, 5_000),
  index_queries: num(values['index-queries'], 500, 200),
  depths: list(values.depths, '16,32,64,128,256'),
  index_datasets: (values['index-datasets'] ?? 'e1-hash,low-rank').split(','),
  peer_sizes: list(values['peer-sizes'], quick ? '100,300' : '500,1000,2000'),
  peer_window: num(values['peer-window'], 100, 50),
  quality_distractors: num(values['quality-distractors'], 2000, 500),
  quality_per_category: num(values['quality-per-category'], 40, 20),
  onnx_texts: num(values['onnx-texts'], 2000, 500),
  round_budget_s: num(values['round-budget-s'], 10, 5),
  curation_sizes: list(values['curation-sizes'], quick ? '1000' : '10000,100000'),
  curation_samples: num(values['curation-samples'], 100, 20),
  // 100k is a flag (--import-sizes 10000,100000); --import-size N is the older single-size form.
  import_sizes: values['import-size'] ? [Number(values['import-size'])] : list(values['import-sizes'], quick ? '2000' : '10000'),
  import_baseline: values['import-baseline'] ?? null,
  import_baseline_max: num(values['import-baseline-max'], 10_000, 2_000),
  locomo: values.locomo ?? DEFAULT_LOCOMO,
  // --quick asks one conversation (≈ 25 s) instead of the whole file (≈ 2 min).
  locomo_limit: values['locomo-limit'] !== undefined ? Number(values['locomo-limit']) : quick ? 1 : null,
};
if (settings.locomo_limit !== null && !(Number.isInteger(settings.locomo_limit) && settings.locomo_limit > 0)) throw new Error('--locomo-limit takes a positive integer');

// An earlier run's report, read before anything is measured so a wrong path fails at once.
const before: Report | null = values.compare ? (JSON.parse(await readFile(resolve(values.compare), 'utf8')) as Report) : null;

const started = new Date();
const report: Report = { benchmark: 'context-graph suite', date: started.toISOString(), machine: machine(), settings, duration_s: 0, results: {}, errors: {} };
log(`start: parts ${settings.parts.join(',')}, sizes ${sizes.join(',')}, seed ${seed}${quick ? ' (quick)' : ''}`);

async function part(name: string, fn: () => Promise<unknown>): Promise<void> {
  const t0 = Date.now();
  log(`part ${name}: start`);
  try {
    report.results[name] = await fn();
  } catch (err) {
    report.errors[name] = (err as Error).stack ?? String(err);
    log(`part ${name}: FAILED ${(err as Error).message}`);
  }
  log(`part ${name}: done in ${Math.round((Date.now() - t0) / 1000)} s`);
}

if (parts.has('quality')) await part('quality', () => runQuality({ seed, distractors: settings.quality_distractors, perCategory: settings.quality_per_category }));
if (parts.has('locomo'))
  await part('locomo', () =>
    runLocomo({ path: values.locomo ? resolve(values.locomo) : resolve(packageRoot(), DEFAULT_LOCOMO), explicit: values.locomo !== undefined, limit: settings.locomo_limit }),
  );
if (parts.has('navigation'))
  await part('navigation', () =>
    runNavigation({
      locomoPath: values.locomo ? resolve(values.locomo) : resolve(packageRoot(), DEFAULT_LOCOMO),
      locomoLimit: settings.locomo_limit,
      sizes: list(values['navigation-sizes'], quick ? '1000' : '10000,100000'),
      queries: settings.queries,
      seed,
    }),
  );
if (parts.has('dreams')) await part('dreams', () => runDreams({ locomoPath: values.locomo ? resolve(values.locomo) : resolve(packageRoot(), DEFAULT_LOCOMO), conversation: 0 }));
if (parts.has('index'))
  await part('index', () =>
    runIndex({ size: settings.index_size, queries: settings.index_queries, seed, depths: settings.depths, rounds: settings.rounds, datasets: settings.index_datasets }),
  );
if (parts.has('onnx')) await part('onnx', () => runOnnx({ texts: settings.onnx_texts, storeSamples: settings.store_samples, rounds: settings.rounds, seed }));
if (parts.has('peer'))
  await part('peer', () => runPeer({ sizes: settings.peer_sizes, window: settings.peer_window, queries: Math.min(settings.queries, 100), rounds: settings.rounds, seed }));
if (parts.has('curation')) await part('curation', () => runCuration({ sizes: settings.curation_sizes, samples: settings.curation_samples, seed }));
if (parts.has('write') || parts.has('read') || parts.has('memory')) {
  await part('scale', () =>
    runScale({
      sizes,
      mcpSizes: settings.mcp_sizes,
      storeSamples: settings.store_samples,
      queries: settings.queries,
      rounds: settings.rounds,
      clients: settings.clients,
      seed,
      roundBudgetS: settings.round_budget_s,
      parts: { write: parts.has('write'), read: parts.has('read'), memory: parts.has('memory') },
    }),
  );
}

if (parts.has('import'))
  await part('import', () =>
    runImportBench({
      sizes: settings.import_sizes,
      storeSamples: Math.max(settings.store_samples * 3, 100),
      seed,
      baseline: settings.import_baseline ? resolve(settings.import_baseline) : null,
      baselineMax: settings.import_baseline_max,
    }),
  );

report.duration_s = Math.round((Date.now() - started.getTime()) / 1000);
const outDir = values.out ?? join(packageRoot(), 'bench', 'results', report.date.slice(0, 10));
await mkdir(outDir, { recursive: true });
await writeFile(join(outDir, 'results.json'), JSON.stringify(report, null, 2) + '\n');
if (before) report.settings.compare = values.compare;
const importSummary = report.results.import ? '\n' + renderImportSummary(report.results.import as ImportBenchResult) : '';
await writeFile(join(outDir, 'summary.md'), renderSummary(report, before) + importSummary);
for (const [file, svg] of Object.entries(renderCharts(report))) await writeFile(join(outDir, file), svg);
process.stdout.write(renderSummary(report, before) + importSummary);
log(`written to ${outDir} in ${report.duration_s} s`);
if (Object.keys(report.errors).length > 0) process.exitCode = 1;
