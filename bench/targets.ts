/**
 * The suite's goals (issue 15's table, the index and quality goals, LoCoMo) measured against a
 * report, and, with `--compare <earlier results.json>`, the same goals read from the earlier run
 * beside them: one function reads both, so the two columns always mean the same thing.
 */
import { INGEST_GOAL_PER_S, type ImportBenchResult } from './part-import.js';
import { locomoTarget } from './locomo/report.js';
import type { Report } from './report.js';
import type { ScaleStep } from './part-scale.js';

export interface Target {
  /** Stable across runs, to find the same goal in an earlier report. */
  key: string;
  name: string;
  target: string;
  measured: string;
  met: boolean | null;
}

const MiB = 2 ** 20;
export const k = (n: number) => (n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));
export const f = (x: number | null | undefined, d = 2) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : String(Math.round(x * 10 ** d) / 10 ** d));

function searchTarget(steps: ScaleStep[]): Target {
  const http = steps.filter((s) => s.read?.mcp_http);
  const p95 = (size: number) => http.find((s) => s.size === size)?.read?.mcp_http?.p95_ms.median;
  const at100k = p95(100_000);
  const at1m = p95(1_000_000);
  const checks = [...(at100k === undefined ? [] : [at100k <= 5]), ...(at1m === undefined ? [] : [at1m <= 15])];
  return {
    key: 'search_http_p95',
    name: 'hybrid search p95 through MCP HTTP',
    target: '≤ 5 ms at 100k; ≤ 15 ms at 1M',
    measured: http.length ? http.map((s) => `${k(s.size)}: ${f(s.read!.mcp_http!.p95_ms.median)} ms`).join(', ') : 'not run',
    met: checks.length ? checks.every(Boolean) : null,
  };
}

function storeTargets(steps: ScaleStep[]): Target[] {
  const stores = steps.filter((s) => s.store);
  if (stores.length === 0) return [];
  const worst = Math.max(...stores.map((s) => s.store!.latency.p95_ms.median));
  const ratio = stores.at(-1)!.store!.latency.p95_ms.median / stores[0]!.store!.latency.p95_ms.median;
  return [
    {
      key: 'store_p95',
      name: 'store p95 (live path), every size',
      target: '≤ 5 ms',
      measured: stores.map((s) => `${k(s.size)}: ${f(s.store!.latency.p95_ms.median)} ms`).join(', '),
      met: worst <= 5,
    },
    {
      key: 'store_p95_flat',
      name: 'store p95 flat as the store grows (last / first)',
      target: '≈ 1 (≤ 1.5)',
      measured: stores.length > 1 ? f(ratio) : 'one size only',
      met: stores.length > 1 ? ratio <= 1.5 : null,
    },
  ];
}

const INGEST_TARGET = `≥ ${INGEST_GOAL_PER_S.toLocaleString('en-US')} memories/s`;

function ingestTargets(r: Report): Target[] {
  const scale = r.results.scale;
  const loads = scale?.steps.filter((s) => s.load && s.load.count >= 1000) ?? [];
  const out: Target[] = [
    {
      key: 'bulk_ingest',
      name: 'bulk ingest to searchable, model-free encoders (the store grown between sizes)',
      target: INGEST_TARGET,
      measured: loads.length ? `${loads.map((s) => `${k(s.size)}: ${f(s.load!.per_s, 0)}/s`).join(', ')}; ${loads[0]!.load!.path}` : 'not run',
      met: loads.length ? loads.every((s) => s.load!.per_s >= INGEST_GOAL_PER_S) : null,
    },
    {
      key: 'push_ingest',
      name: '`push` to searchable, model-free encoders',
      target: INGEST_TARGET,
      measured: scale?.push ? `${f(scale.push.per_s, 0)}/s (${k(scale.push.count)} chunks)` : 'not measured',
      met: scale?.push ? scale.push.per_s >= INGEST_GOAL_PER_S : null,
    },
  ];
  const imp = r.results.import as ImportBenchResult | undefined;
  const runs = imp?.runs.filter((x) => x.side === 'current') ?? [];
  if (runs.length)
    out.push({
      key: 'import_jsonl',
      name: '`context-graph import` of JSONL to searchable by default search (embedded)',
      target: INGEST_TARGET,
      measured: runs
        .map(
          (x) =>
            `${k(x.size)}: ${f(x.searchable_per_s, 0)}/s${x.every_space_per_s !== undefined && x.every_space_s !== x.searchable_s ? ` (every space ${f(x.every_space_per_s, 0)}/s)` : ''}`,
        )
        .join(', '),
      met: runs.every((x) => x.searchable_per_s >= INGEST_GOAL_PER_S),
    });
  return out;
}

function concurrencyTarget(steps: ScaleStep[]): Target {
  const step = steps.filter((s) => s.read?.concurrency?.some((c) => c.clients === 16) && s.read.concurrency.some((c) => c.clients === 1)).at(-1);
  const one = step?.read?.concurrency?.find((c) => c.clients === 1);
  const many = step?.read?.concurrency?.find((c) => c.clients === 16);
  const rate = one && many ? many.throughput_qps / one.throughput_qps : NaN;
  const tail = one && many ? many.latency.p95_ms / one.latency.p95_ms : NaN;
  return {
    key: 'clients_16',
    name: `16 concurrent MCP HTTP clients${step ? ` at ${k(step.size)}` : ''} against one`,
    target: 'rate ≥ 2×, p95 ≤ 4×',
    measured:
      one && many
        ? `${f(many.throughput_qps, 1)} vs ${f(one.throughput_qps, 1)} q/s (${f(rate)}×), p95 ${f(many.latency.p95_ms, 1)} vs ${f(one.latency.p95_ms, 1)} ms (${f(tail, 1)}×)`
        : 'not run',
    met: one && many ? rate >= 2 && tail <= 4 : null,
  };
}

function footprintTargets(r: Report): Target[] {
  const scale = r.results.scale;
  // Runs before the idle figure existed read the empty server after its 20 warm-up searches.
  const idle = scale?.idle_serve_rss_bytes ?? null;
  const rss = idle ?? scale?.empty_serve_rss_bytes ?? null;
  const million = scale?.steps.find((s) => s.size === 1_000_000);
  return [
    {
      key: 'idle_rss',
      name: 'idle `serve` RSS, fresh data dir',
      target: '≤ 200 MiB',
      measured: rss === null ? 'not run' : `${f(rss / MiB, 0)} MiB${idle === null ? ' (after 20 searches)' : ' (10 s after listening)'}`,
      met: rss === null ? null : rss / MiB <= 200,
    },
    {
      key: 'one_million',
      name: '1M memories: load, store p95, search p95, RSS, disk',
      target: 'measured (`--sizes 1000000`)',
      measured: million
        ? [
            `load ${f(million.load?.per_s, 0)}/s`,
            `store p95 ${f(million.store?.latency.p95_ms.median)} ms`,
            `search p95 ${f(million.read?.mcp_http?.p95_ms.median ?? million.read?.in_process.p95_ms.median)} ms${million.read?.mcp_http ? ' (MCP HTTP)' : ' (in process)'}`,
            `RSS ${f((million.memory?.serve_rss_bytes ?? NaN) / MiB, 0)} MiB`,
            `disk ${f((million.memory?.data_dir_bytes ?? NaN) / MiB / 1024, 1)} GiB`,
          ].join(', ')
        : 'not run (a separate flag: see bench/PERFORMANCE.md)',
      met: million ? true : null,
    },
  ];
}

function qualityTargets(r: Report): Target[] {
  const out: Target[] = [];
  const onnx = r.results.onnx;
  out.push({
    key: 'onnx_ratio',
    name: 'ingest with a model / raw onnxruntime',
    target: '≥ 0.90',
    measured: onnx ? `bulk ${f(onnx.ratios.bulk_ingest_over_raw, 3)}, embed pool ${f(onnx.ratios.pipeline_embed_over_raw, 3)}` : 'not run',
    met: onnx ? (onnx.ratios.bulk_ingest_over_raw ?? 0) >= 0.9 : null,
  });
  for (const d of r.results.index ?? []) {
    const prod = d.depths.find((x) => x.expansion_search === 128) ?? d.depths.at(-1);
    out.push({
      key: `recall_${d.dataset}`,
      name: `vector recall@10, ${d.dataset}, ${k(d.vectors)}, ef ${prod?.expansion_search}`,
      target: '≥ 0.98',
      measured: f(prod?.recall_at_10, 4),
      met: prod ? prod.recall_at_10 >= 0.98 : null,
    });
  }
  const q = r.results.quality;
  if (q) {
    const h = q.systems.hybrid?.overall;
    const b = q.systems.bm25_wink?.overall;
    out.push({
      key: 'quality_hybrid_bm25',
      name: 'quality: hybrid above BM25 at recall@5/10/25',
      target: 'all three',
      measured: `${f(h?.recall_at_5, 3)}/${f(h?.recall_at_10, 3)}/${f(h?.recall_at_25, 3)} vs ${f(b?.recall_at_5, 3)}/${f(b?.recall_at_10, 3)}/${f(b?.recall_at_25, 3)}`,
      met: q.hybrid_beats_bm25_at_every_k,
    });
  }
  const locomo = locomoTarget(r.results.locomo);
  if (locomo) out.push({ key: 'locomo', ...locomo });
  return out;
}

export function targets(r: Report): Target[] {
  const steps = r.results.scale?.steps ?? [];
  return [searchTarget(steps), ...storeTargets(steps), ...ingestTargets(r), concurrencyTarget(steps), ...footprintTargets(r), ...qualityTargets(r)];
}

/** The Targets table; with an earlier report, its figure for each goal in a column before this run's. */
export function renderTargets(r: Report, before?: Report | null): string[] {
  const met = (t: Target) => (t.met === null ? 'n/a' : t.met ? 'yes' : '**no**');
  if (!before) return ['| target | goal | measured | met |', '|---|---|---|---|', ...targets(r).map((t) => `| ${t.name} | ${t.target} | ${t.measured} | ${met(t)} |`)];
  const earlier = new Map(targets(before).map((t) => [t.key, t]));
  const label = `before (${before.machine.git_commit?.slice(0, 7) ?? 'n/a'}, ${before.date.slice(0, 10)})`;
  return [
    `| target | goal | ${label} | now (${r.machine.git_commit?.slice(0, 7) ?? 'n/a'}) | met |`,
    '|---|---|---|---|---|',
    ...targets(r).map((t) => `| ${t.name} | ${t.target} | ${earlier.get(t.key)?.measured ?? 'not in that run'} | ${t.measured} | ${met(t)} |`),
  ];
}
