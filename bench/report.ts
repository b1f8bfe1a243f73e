/** summary.md and SVG charts from a suite report. */
import { barChart, lineChart } from './chart.js';
import type { Machine } from './env.js';
import { renderLocomo } from './locomo/report.js';
import { renderCuration, type CurationResult } from './part-curation.js';
import type { IndexDatasetResult } from './part-index.js';
import type { LocomoOutcome } from './part-locomo.js';
import type { OnnxResult } from './part-onnx.js';
import type { PeerResult } from './part-peer.js';
import type { QualityResult } from './part-quality.js';
import type { ScaleResult } from './part-scale.js';
import { f, k, renderTargets } from './targets.js';

export interface Report {
  benchmark: string;
  date: string;
  machine: Machine;
  settings: Record<string, unknown> & { seed: number; quick: boolean; sizes: number[] };
  duration_s: number;
  results: { quality?: QualityResult; locomo?: LocomoOutcome; index?: IndexDatasetResult[]; onnx?: OnnxResult; peer?: PeerResult; scale?: ScaleResult } & Record<string, unknown>;
  errors: Record<string, string>;
}

const spread = (r: { median: number; min: number; max: number } | undefined) => (r ? `${f(r.median)} (${f(r.min)}–${f(r.max)})` : 'n/a');

function stamp(r: Report): string {
  const m = r.machine;
  return `${m.cpus}× ${m.cpu_model ?? 'cpu'}, ${m.memory_gb} GB, Node ${m.node}; seed ${r.settings.seed}${r.settings.quick ? '; QUICK sizes' : ''}`;
}

/** summary.md; `before` (an earlier run's report, `--compare`) adds its figures to the Targets table. */
export function renderSummary(r: Report, before?: Report | null): string {
  const L: string[] = [];
  L.push(`# context-graph benchmark — ${r.date.slice(0, 16).replace('T', ' ')} UTC`, '');
  L.push(`Machine: ${stamp(r)}; load average at start ${r.machine.load_avg_at_start.join(' / ')}; commit ${r.machine.git_commit ?? 'n/a'}.`);
  L.push(
    `Parts: ${(r.settings.parts as string[]).join(', ')}. Duration ${r.duration_s} s. Timings are wall clock; latency figures are the median over ${r.settings.rounds} rounds with the (min–max) of the rounds; compare figures as ratios within this run only.`,
    '',
  );
  if (Object.keys(r.errors).length) {
    L.push('## Errors', '');
    for (const [p, e] of Object.entries(r.errors)) L.push(`- **${p}**: ${e.split('\n')[0]}`);
    L.push('');
  }
  L.push('## Targets', '', ...renderTargets(r, before), '');

  const s = r.results.scale;
  if (s) {
    L.push(
      '## Write and read path (model-free encoders)',
      '',
      `Mode: ${s.mode}. Store grown by bulk load between sizes; per-call figures on the live path. Query rounds stop after ${r.settings.round_budget_s} s (at least 10 queries): see pooled n in results.json.`,
      '',
    );
    L.push(
      '| size | bulk load (path, memories/s) | store p50 / p95 / p99 ms | live store/s | query in-process p50 / p95 ms | MCP HTTP p50 / p95 ms | MCP stdio p50 / p95 ms |',
      '|---|---|---|---|---|---|---|',
    );
    for (const st of s.steps) {
      const sl = st.store?.latency;
      const rd = st.read;
      L.push(
        `| ${k(st.size)} | ${st.load ? `${st.load.path}, ${f(st.load.per_s, 0)}` : '–'} | ${sl ? `${spread(sl.p50_ms)} / ${spread(sl.p95_ms)} / ${spread(sl.p99_ms)}` : '–'} | ${st.store ? f(st.store.live_per_s, 1) : '–'} | ${rd ? `${spread(rd.in_process.p50_ms)} / ${spread(rd.in_process.p95_ms)}` : '–'} | ${rd?.mcp_http ? `${spread(rd.mcp_http.p50_ms)} / ${spread(rd.mcp_http.p95_ms)}` : '–'} | ${rd?.mcp_stdio ? `${spread(rd.mcp_stdio.p50_ms)} / ${spread(rd.mcp_stdio.p95_ms)}` : '–'} |`,
      );
    }
    L.push(
      '',
      `Ingest through \`push\` (documents of 100 one-sentence chunks, on a store of its own): ${s.push ? `${f(s.push.per_s, 0)} memories/s to searchable, ${s.push.count} chunks in ${f(s.push.seconds)} s` : 'not measured'}.`,
      '',
    );
    for (const st of s.steps) {
      if (st.serve_start_s !== undefined) L.push(`\`serve\` on the ${k(st.size)} store listened after ${f(st.serve_start_s, 1)} s (index snapshots loaded).`, '');
      if (st.stdio_first_call_s !== undefined)
        L.push(
          `A \`stdio\` client's first \`search\` on the ${k(st.size)} store answered after ${f(st.stdio_first_call_s, 1)} s (the store opens behind the early handshake).`,
          '',
        );
      if (st.mcp_error) L.push(`MCP stage at ${k(st.size)} failed: ${st.mcp_error.split('\n')[0]}`, '');
    }
    const conc = s.steps.filter((st) => st.read?.concurrency?.length);
    if (conc.length) {
      L.push(
        '### Concurrent MCP HTTP clients (one session each, `search` limit 5)',
        '',
        '| size | clients | queries | throughput q/s | p50 ms | p95 ms | p99 ms |',
        '|---|---|---|---|---|---|---|',
      );
      for (const st of conc)
        for (const c of st.read!.concurrency!)
          L.push(`| ${k(st.size)} | ${c.clients} | ${c.total_queries} | ${f(c.throughput_qps, 1)} | ${f(c.latency.p50_ms)} | ${f(c.latency.p95_ms)} | ${f(c.latency.p99_ms)} |`);
      L.push('');
    }
    const mem = s.steps.filter((st) => st.memory);
    if (mem.length) {
      L.push(
        '### Memory',
        '',
        `Empty \`serve\` process RSS: ${s.idle_serve_rss_bytes ? `${f(s.idle_serve_rss_bytes / 2 ** 20, 1)} MiB 10 s after listening, ` : ''}${s.empty_serve_rss_bytes === null ? 'n/a' : `${f(s.empty_serve_rss_bytes / 2 ** 20, 1)} MiB after 20 searches`}.`,
        '',
        '| size | serve RSS MiB | RSS over empty, bytes/memory | data dir MiB | data dir bytes/memory |',
        '|---|---|---|---|---|',
      );
      for (const st of mem)
        L.push(
          `| ${k(st.size)} | ${f((st.memory!.serve_rss_bytes ?? NaN) / 2 ** 20, 1)} | ${f(st.memory!.serve_rss_over_empty_bytes_per_memory, 0)} | ${f(st.memory!.data_dir_bytes / 2 ** 20, 1)} | ${f(st.memory!.data_dir_bytes_per_memory, 0)} |`,
        );
      L.push('');
    }
    if (!s.sizes.includes(1_000_000)) L.push('1M memories: not run by default (time budget of the default suite on this machine); select it with `--sizes ...,1000000`.', '');
  }

  const o = r.results.onnx;
  if (o) {
    L.push(
      '## Write path with the generated ONNX model',
      '',
      `${o.model}; ${o.texts} texts; embedding pool ${o.pool_threads} worker thread(s); raw onnxruntime with 1 intra-op thread.`,
      '',
    );
    L.push('| measure | texts/s (median, min–max) | ratio to raw ort (run only) |', '|---|---|---|');
    L.push(`| raw onnxruntime, session.run only | ${spread(o.raw_ort_run_only_per_s)} | 1 |`);
    L.push(`| raw onnxruntime, with tokenizer | ${spread(o.raw_ort_with_tokenizer_per_s)} | ${f(o.raw_ort_with_tokenizer_per_s.median / o.raw_ort_run_only_per_s.median, 3)} |`);
    L.push(`| embedding pool (E1) | ${spread(o.pipeline_embed_e1_per_s)} | ${f(o.ratios.pipeline_embed_over_raw, 3)} |`);
    L.push(`| bulk ingest (${o.bulk_ingest_path}, E1 + E9) | ${f(o.bulk_ingest_per_s, 0)} | ${f(o.ratios.bulk_ingest_over_raw, 3)} |`);
    L.push(
      '',
      `Live \`store\` with the model at ${k(o.store.at_size)}: p50 ${spread(o.store.latency.p50_ms)} ms, p95 ${spread(o.store.latency.p95_ms)} ms, p99 ${spread(o.store.latency.p99_ms)} ms (${f(o.store.live_per_s, 1)}/s).`,
      '',
    );
  }

  const idx = r.results.index;
  if (idx) {
    L.push('## Vector index (USearch, production settings: cos, f16, M 16, ef_add 128)', '');
    for (const d of idx) {
      L.push(
        `**${d.dataset}**: ${k(d.vectors)} × ${d.dim}-d, ${d.queries} queries; add ${f(d.add_per_s, 0)} vectors/s (${d.add_threads} threads); memory ${d.rss_bytes_per_vector ?? 'n/a'} B/vector RSS, ${d.file_bytes_per_vector} B/vector on disk (raw f32 ${d.raw_f32_bytes_per_vector} B).`,
        '',
      );
      L.push('| expansion_search | recall@10 vs exact | single-query q/s (1 thread) |', '|---|---|---|');
      for (const x of d.depths) L.push(`| ${x.expansion_search}${x.expansion_search === 128 ? ' (app default)' : ''} | ${f(x.recall_at_10, 4)} | ${spread(x.qps)} |`);
      L.push('');
    }
  }

  const p = r.results.peer;
  if (p) {
    L.push(
      `## Peer baseline: ${p.peer.package} ${p.peer.version} (both over MCP stdio)`,
      '',
      `Write latency over the last ${p.window} writes before each size; search with the same ${p.our_side.search.samples_per_round} queries × ${p.our_side.search.rounds} rounds.`,
      '',
    );
    L.push('| size | server-memory write p50 / p95 ms | ours store p50 / p95 ms | ratio ours/peer p50 | p95 |', '|---|---|---|---|---|');
    p.sizes.forEach((size, i) => {
      const a = p.peer_side.writes[i]?.latency;
      const b = p.our_side.writes[i]?.latency;
      L.push(
        `| ${k(size)} | ${f(a?.p50_ms)} / ${f(a?.p95_ms)} | ${f(b?.p50_ms)} / ${f(b?.p95_ms)} | ${f(p.ratios.write_p50[i]?.ratio, 3)} | ${f(p.ratios.write_p95[i]?.ratio, 3)} |`,
      );
    });
    L.push(
      '',
      `Search at ${k(Math.max(...p.sizes))}: server-memory \`search_nodes\` p50 ${spread(p.peer_side.search.p50_ms)} ms, p95 ${spread(p.peer_side.search.p95_ms)} ms, non-empty answers ${f(p.peer_side.search_nonempty_rate * 100, 0)} %; ours \`search\` p50 ${spread(p.our_side.search.p50_ms)} ms, p95 ${spread(p.our_side.search.p95_ms)} ms, non-empty ${f(p.our_side.search_nonempty_rate * 100, 0)} %. Ratio ours/peer: p50 ${f(p.ratios.search_p50, 3)}, p95 ${f(p.ratios.search_p95, 3)}. (server-memory matches the whole query as a substring, so natural-language questions mostly find nothing.)`,
      '',
    );
  }

  const q = r.results.quality;
  if (q) {
    L.push(
      '## Retrieval quality (generated labelled set)',
      '',
      `${q.set.memories} memories (${q.set.distractors} distractors), ${q.set.queries} queries: ${Object.entries(q.set.by_category)
        .map(([c, n]) => `${c} ${n}`)
        .join(', ')}; seed ${q.seed}; E1 provider ${q.e1_provider}; loaded by ${q.loaded_by}; BM25 = wink-bm25-text-search${q.bm25_stemmed ? ' (Porter2 stems)' : ''}.`,
      '',
    );
    L.push('| system | recall@5 | recall@10 | recall@25 | MRR | nDCG@10 |', '|---|---|---|---|---|---|');
    for (const [name, sc] of Object.entries(q.systems))
      L.push(
        `| ${name} | ${f(sc.overall.recall_at_5, 3)} | ${f(sc.overall.recall_at_10, 3)} | ${f(sc.overall.recall_at_25, 3)} | ${f(sc.overall.mrr, 3)} | ${f(sc.overall.ndcg_at_10, 3)} |`,
      );
    L.push(
      '',
      `Hybrid / BM25: ${Object.entries(q.hybrid_over_bm25)
        .map(([m, v]) => `${m} ${f(v, 3)}`)
        .join(', ')}.`,
      '',
    );
    const cats = Object.keys(q.set.by_category);
    L.push('nDCG@10 by category:', '', `| system | ${cats.join(' | ')} |`, `|---|${cats.map(() => '---').join('|')}|`);
    for (const [name, sc] of Object.entries(q.systems)) L.push(`| ${name} | ${cats.map((c) => f(sc.by_category[c]?.ndcg_at_10, 3)).join(' | ')} |`);
    L.push('');
  }
  L.push(...renderLocomo(r.results.locomo));
  if (r.results.curation) L.push(...renderCuration(r.results.curation as CurationResult));
  return L.join('\n') + '\n';
}

export function renderCharts(r: Report): Record<string, string> {
  const out: Record<string, string> = {};
  const sub = stamp(r);
  const s = r.results.scale;
  if (s) {
    const st = s.steps.filter((x) => x.store);
    if (st.length)
      out['store-latency.svg'] = lineChart({
        title: 'store latency as the store grows (live path)',
        subtitle: sub,
        yLabel: 'ms',
        xLabels: st.map((x) => k(x.size)),
        series: (['p50_ms', 'p95_ms', 'p99_ms'] as const).map((p) => ({ name: p.replace('_ms', ''), values: st.map((x) => x.store!.latency[p].median) })),
        target: { value: 5, label: 'target p95 5 ms' },
      });
    const rd = s.steps.filter((x) => x.read);
    if (rd.length)
      out['query-latency.svg'] = barChart({
        title: 'hybrid query p95 by path',
        subtitle: sub,
        yLabel: 'ms (p95)',
        categories: rd.map((x) => k(x.size)),
        series: [
          { name: 'in process', values: rd.map((x) => x.read!.in_process.p95_ms.median) },
          { name: 'MCP HTTP', values: rd.map((x) => x.read!.mcp_http?.p95_ms.median ?? null) },
          { name: 'MCP stdio', values: rd.map((x) => x.read!.mcp_stdio?.p95_ms.median ?? null) },
        ],
        target: { value: 10, label: 'target 10 ms' },
      });
  }
  if (r.results.index?.length) {
    out['index-recall.svg'] = lineChart({
      title: 'USearch recall@10 vs exact, by expansion_search',
      subtitle: sub,
      yLabel: 'recall@10',
      xLabels: r.results.index[0]!.depths.map((d) => String(d.expansion_search)),
      series: r.results.index.map((d) => ({ name: d.dataset.split(' ')[0]!, values: d.depths.map((x) => x.recall_at_10) })),
      target: { value: 0.98, label: 'target 0.98' },
    });
    out['index-qps.svg'] = lineChart({
      title: 'USearch single-query throughput, by expansion_search',
      subtitle: sub,
      yLabel: 'queries/s',
      xLabels: r.results.index[0]!.depths.map((d) => String(d.expansion_search)),
      series: r.results.index.map((d) => ({ name: d.dataset.split(' ')[0]!, values: d.depths.map((x) => x.qps.median) })),
    });
  }
  const q = r.results.quality;
  if (q) {
    const metrics = ['recall_at_5', 'recall_at_10', 'recall_at_25', 'mrr', 'ndcg_at_10'] as const;
    out['quality.svg'] = barChart({
      title: 'retrieval quality on the generated set',
      subtitle: sub,
      yLabel: 'score',
      categories: metrics.map((m) => m.replace('_at_', '@')),
      series: Object.entries(q.systems).map(([name, sc]) => ({ name, values: metrics.map((m) => sc.overall[m]) })),
    });
  }
  const p = r.results.peer;
  if (p)
    out['peer-write.svg'] = lineChart({
      title: 'write p50 as the store grows: ours vs server-memory (stdio)',
      subtitle: sub,
      yLabel: 'ms',
      xLabels: p.sizes.map(k),
      series: [
        { name: 'server-memory', values: p.peer_side.writes.map((w) => w.latency.p50_ms) },
        { name: 'context-graph', values: p.our_side.writes.map((w) => w.latency.p50_ms) },
      ],
    });
  return out;
}
