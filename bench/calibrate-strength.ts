/**
 * How each signal's raw value reads as "how strongly this memory matches the question"
 * (src/services/fusion.ts matchStrength), measured on a LoCoMo-format file: every question
 * against every turn of its conversation, the turns split into its evidence and the rest. For
 * the lexical signal (E13 BM25 over the query's yardstick), E1 (cosine ramp), E6 (BM25 over its
 * own yardstick) and E12 (MaxSim), it prints quantiles of each population and the share of each
 * scoring at or above the search tool's default threshold, and the E12 ramp floor at which
 * unrelated turns pass that threshold no more often than they do by E1.
 *
 *   npm run build && node dist/bench/calibrate-strength.js --locomo ../shared/data/locomo-dev.json
 *
 * Real components (the embedding pool, the index thread, queryTermStats), no app or database:
 * one index per space holding every turn, as the bench's single store does. Only aggregate
 * figures are printed (the data is CC BY-NC).
 */
import { parseArgs } from 'node:util';
import { createEmbedder } from '../src/embed/pool.js';
import type { SpaceId } from '../src/embed/types.js';
import { unpackTerms } from '../src/embed/keyword.js';
import { createVectorIndexes } from '../src/index/usearch-host.js';
import { createLogger } from '../src/log.js';
import { bm25Scale, queryTermStats } from '../src/services/query-weights.js';
import { COSINE_FLOOR, COSINE_FULL, MAXSIM_FLOOR } from '../src/services/fusion.js';
import { readLocomo } from './locomo/data.js';

const THRESHOLD = 0.25;
const SPACES: SpaceId[] = ['E1', 'E6', 'E12', 'E13'];

const { values } = parseArgs({ options: { locomo: { type: 'string', default: '../shared/data/locomo-dev.json' } } });
const { samples } = await readLocomo(values.locomo);
const logger = createLogger('silent');
const embedder = await createEmbedder({ logger, threads: 1 });
const indexes = createVectorIndexes();
try {
  for (const e of embedder.encoders().filter((x) => SPACES.includes(x.space))) await indexes.ensure({ space: e.space, dim: e.dim, modelId: e.modelId });
  const conversations: Array<{ keys: number[]; dia: Map<number, string>; questions: (typeof samples)[number]['questions'] }> = [];
  let key = 0;
  for (const s of samples) {
    const keys = s.turns.map(() => ++key);
    // Stored memories carry items (time, position): E6 expands them, as the embed job does.
    const vectors = await embedder.embed(
      s.turns.map((t) => t.content),
      SPACES,
      { items: s.turns.map((t, i) => ({ at: t.validFrom.getTime(), position: i })) },
    );
    for (const space of SPACES) await indexes.upsert(space, keys, vectors.get(space)!);
    conversations.push({ keys, dia: new Map(keys.map((k, i) => [k, s.turns[i]!.diaId])), questions: s.questions });
  }

  const measures = ['lexical', 'E1', 'E6', 'E12_raw'] as const;
  type Measure = (typeof measures)[number];
  const values_: Record<'evidence' | 'other', Record<Measure, number[]>> = {
    evidence: { lexical: [], E1: [], E6: [], E12_raw: [] },
    other: { lexical: [], E1: [], E6: [], E12_raw: [] },
  };
  let questions = 0;
  for (const c of conversations) {
    for (const q of c.questions) {
      if (q.evidence.length === 0) continue;
      questions++;
      const stats = await queryTermStats(indexes, q.text);
      const qv = await embedder.embed([q.text], SPACES, { wordWeights: stats.wordWeights });
      const score = async (space: SpaceId) => {
        const hits = await indexes.search(space, qv.get(space)![0]!, c.keys.length, { among: c.keys });
        return new Map(hits.map((h) => [h.key, h.similarity]));
      };
      const [lex, e1, e6, e12] = await Promise.all([score('E13'), score('E1'), score('E6'), score('E12')]);
      const e6Scale = bm25Scale(await indexes.termIdf('E6', [...unpackTerms(qv.get('E6')![0]!).ids]));
      const evidence = new Set(q.evidence);
      for (const k of c.keys) {
        const pop = evidence.has(c.dia.get(k)!) ? values_.evidence : values_.other;
        pop.lexical.push(stats.lexicalScale > 0 ? Math.min(1, (lex.get(k) ?? 0) / stats.lexicalScale) : 0);
        pop.E1.push(Math.max(0, Math.min(1, ((e1.get(k) ?? 0) - COSINE_FLOOR) / (COSINE_FULL - COSINE_FLOOR))));
        pop.E6.push(e6Scale > 0 ? Math.min(1, (e6.get(k) ?? 0) / e6Scale) : 0);
        pop.E12_raw.push(e12.get(k) ?? 0);
      }
    }
  }
  const sorted = (xs: number[]) => Float64Array.from(xs).sort();
  const quantile = (xs: Float64Array, p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  const share = (xs: Float64Array, min: number) => xs.filter((x) => x >= min).length / xs.length;
  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  const table: Record<string, unknown> = {};
  const s = { evidence: {} as Record<Measure, Float64Array>, other: {} as Record<Measure, Float64Array> };
  for (const pop of ['evidence', 'other'] as const) {
    for (const m of measures) {
      const xs = (s[pop][m] = sorted(values_[pop][m]));
      table[`${m} ${pop}`] = {
        n: xs.length,
        p50: round(quantile(xs, 0.5)),
        p90: round(quantile(xs, 0.9)),
        p95: round(quantile(xs, 0.95)),
        p99: round(quantile(xs, 0.99)),
        [`share>=${THRESHOLD}`]: m === 'E12_raw' ? null : round(share(xs, THRESHOLD)),
      };
    }
  }
  // The E12 ramp (raw − F) / (1 − F): the floor F at which as many unrelated turns reach the
  // threshold as by E1's cosine ramp; and what the floor in fusion.ts gives.
  const e1Other = share(s.other.E1, THRESHOLD);
  const rawAt = (floor: number) => floor + THRESHOLD * (1 - floor);
  let matched = 0;
  for (let f = 0; f <= 0.95; f += 0.005) {
    if (share(s.other.E12_raw, rawAt(f)) <= e1Other) {
      matched = f;
      break;
    }
  }
  const e12 = (floor: number) => ({
    floor: round(floor),
    other_share: round(share(s.other.E12_raw, rawAt(floor))),
    evidence_share: round(share(s.evidence.E12_raw, rawAt(floor))),
  });
  console.log(
    JSON.stringify(
      {
        file: values.locomo,
        questions,
        threshold: THRESHOLD,
        quantiles_of_strength: table,
        e1_other_share: round(e1Other),
        e12_floor_matching_e1: e12(matched),
        e12_floor_in_fusion: e12(MAXSIM_FLOOR),
      },
      null,
      2,
    ),
  );
} finally {
  await indexes.close();
  await embedder.close();
}
