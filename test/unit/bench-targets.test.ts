import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Report } from '../../bench/report.js';
import type { ScaleResult, ScaleStep } from '../../bench/part-scale.js';
import { renderTargets, targets } from '../../bench/targets.js';

const p95 = (ms: number) => ({ p95_ms: { median: ms, min: ms, max: ms, runs: [ms] } }) as never;
const summary = (p95Ms: number) => ({ n: 100, mean_ms: p95Ms / 2, p50_ms: p95Ms / 2, p95_ms: p95Ms, p99_ms: p95Ms, max_ms: p95Ms });
const MiB = 2 ** 20;

function report(commit: string, scale: Partial<ScaleResult> & { steps: ScaleStep[] }): Report {
  return {
    benchmark: 'test',
    date: '2026-11-28T00:00:00.000Z',
    machine: { git_commit: commit } as Report['machine'],
    settings: { seed: 42, quick: false, sizes: [] },
    duration_s: 1,
    results: { scale: { empty_serve_rss_bytes: null, push: null, ...scale } as ScaleResult },
    errors: {},
  };
}

const step100k = (storeMs: number, httpMs: number, one: [number, number], sixteen: [number, number]): ScaleStep => ({
  size: 100_000,
  load: { path: 'import-pipelined', seconds: 100, per_s: 1000, count: 99_000 },
  store: { latency: p95(storeMs), live_per_s: 100 },
  read: {
    in_process: p95(httpMs / 2),
    mcp_http: p95(httpMs),
    concurrency: [
      { clients: 1, total_queries: 200, throughput_qps: one[0], latency: summary(one[1]) },
      { clients: 16, total_queries: 208, throughput_qps: sixteen[0], latency: summary(sixteen[1]) },
    ],
  },
});

test("issue 15's goals are judged from the measured figures", () => {
  const byKey = (r: Report) => new Map(targets(r).map((t) => [t.key, t]));
  const met = byKey(report('aaaaaaa', { idle_serve_rss_bytes: 172 * MiB, steps: [step100k(4.5, 4.9, [100, 10], [210, 39])] }));
  assert.equal(met.get('search_http_p95')!.met, true);
  assert.equal(met.get('store_p95')!.met, true);
  assert.equal(met.get('clients_16')!.met, true, met.get('clients_16')!.measured);
  assert.equal(met.get('idle_rss')!.met, true);
  assert.match(met.get('idle_rss')!.measured, /^172 MiB \(10 s after listening\)/);
  assert.equal(met.get('bulk_ingest')!.met, false);
  assert.equal(met.get('one_million')!.met, null);
  // One size says nothing about how p95 grows with the store.
  assert.equal(met.get('store_p95_flat')!.met, null);

  // Twice the rate but a tail over 4× one client's misses the concurrency goal; 5.1 ms misses search.
  const missed = byKey(report('bbbbbbb', { empty_serve_rss_bytes: 529 * MiB, steps: [step100k(4.5, 5.1, [100, 10], [210, 41])] }));
  assert.equal(missed.get('search_http_p95')!.met, false);
  assert.equal(missed.get('clients_16')!.met, false);
  // A run without the idle figure is read after its warm-up searches, and says so.
  assert.equal(missed.get('idle_rss')!.met, false);
  assert.match(missed.get('idle_rss')!.measured, /after 20 searches/);
});

test('with an earlier report, each goal shows its earlier figure beside the new one', () => {
  const before = report('1111111aaaa', { empty_serve_rss_bytes: 529 * MiB, steps: [step100k(19.9, 18.2, [76, 18], [105, 255])] });
  const now = report('2222222bbbb', {
    idle_serve_rss_bytes: 172 * MiB,
    push: { path: 'push', count: 2, seconds: 1, per_s: 550 },
    steps: [step100k(13, 14, [100, 14], [130, 170])],
  });
  const table = renderTargets(now, before);
  assert.match(table[0]!, /\| before \(1111111, 2026-11-28\) \| now \(2222222\) \|/);
  const row = (name: string) => table.find((l) => l.startsWith(`| ${name}`))!;
  assert.match(row('store p95 (live path)'), /\| 100k: 19\.9 ms \| 100k: 13 ms \| \*\*no\*\* \|$/);
  assert.match(row('idle `serve` RSS'), /\| 529 MiB \(after 20 searches\) \| 172 MiB \(10 s after listening\) \| yes \|$/);
  assert.match(row('`push`'), /\| not measured \| 550\/s \(2 chunks\) \| \*\*no\*\* \|$/);
  assert.equal(renderTargets(now)[0], '| target | goal | measured | met |');
});
