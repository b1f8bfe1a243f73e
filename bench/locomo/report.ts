/** The LoCoMo section of summary.md and its line in the targets table. */
import type { LocomoOutcome, LocomoResult } from '../part-locomo.js';
import { LOCOMO_CATEGORIES } from './data.js';
import { LOCOMO_KS, type LocomoScores } from './score.js';

/** Issue 8's goal for `search` on the dev set (recall in percent). */
export const LOCOMO_GOAL_R10 = 72;

const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : (x * 100).toFixed(1));
const ms = (x: number) => (Number.isFinite(x) ? String(Math.round(x * 100) / 100) : 'n/a');
const row = (s: LocomoScores | undefined) => [...LOCOMO_KS.map((k) => pct(s?.[`recall_at_${k}`])), ...LOCOMO_KS.map((k) => pct(s?.[`hit_at_${k}`]))].join(' | ');
const HEADER = `${LOCOMO_KS.map((k) => `R@${k}`).join(' | ')} | ${LOCOMO_KS.map((k) => `hit@${k}`).join(' | ')}`;
const RULE = LOCOMO_KS.map(() => '---|---').join('|');

function isResult(o: LocomoOutcome | undefined): o is LocomoResult {
  return o !== undefined && !('skipped' in o);
}

/** `search` through MCP above plain BM25 at every k, overall and in every category. */
export function searchBeatsBm25Everywhere(r: LocomoResult): boolean {
  const ours = r.systems.search_mcp;
  const bm25 = r.systems.bm25_wink;
  if (!ours || !bm25) return false;
  const pairs: Array<[LocomoScores | undefined, LocomoScores | undefined]> = [
    [ours.overall, bm25.overall],
    ...Object.keys(bm25.by_category).map((c) => [ours.by_category[c], bm25.by_category[c]] as [LocomoScores | undefined, LocomoScores | undefined]),
  ];
  return pairs.every(([a, b]) => a !== undefined && b !== undefined && LOCOMO_KS.every((k) => a[`recall_at_${k}`] > b[`recall_at_${k}`]));
}

export function locomoTarget(o: LocomoOutcome | undefined): { name: string; target: string; measured: string; met: boolean | null } | null {
  if (!o) return null;
  const name = 'LoCoMo: `search` through MCP, R@10, and above BM25 at every k and category';
  if (!isResult(o)) return { name, target: `≥ ${LOCOMO_GOAL_R10} on the dev set`, measured: 'skipped (no data)', met: null };
  const s = o.systems.search_mcp?.overall;
  const b = o.systems.bm25_wink?.overall;
  const beats = searchBeatsBm25Everywhere(o);
  return {
    name,
    target: `≥ ${LOCOMO_GOAL_R10} on the dev set; above BM25 everywhere`,
    measured: `${pct(s?.recall_at_10)} (BM25 ${pct(b?.recall_at_10)}; above BM25 everywhere: ${beats ? 'yes' : 'no'}) on ${o.file}${o.conversations < 5 ? `, ${o.conversations} conversation(s)` : ''}`,
    met: s !== undefined && s.recall_at_10 * 100 >= LOCOMO_GOAL_R10 && beats,
  };
}

export function renderLocomo(o: LocomoOutcome | undefined): string[] {
  if (!o) return [];
  const L: string[] = ['## Retrieval on real conversations (LoCoMo)', ''];
  if (!isResult(o)) return [...L, `Skipped: ${o.skipped}.`, ''];
  const q = o.questions;
  L.push(
    `${o.file}: ${o.conversations} conversations, ${o.turns} turns (one memory each, \`valid_from\` = session date), ${q.total} questions (${Object.entries(q.by_category)
      .map(([c, n]) => `${c} ${LOCOMO_CATEGORIES[Number(c)] ?? '?'} ${n}`)
      .join(', ')}); ${q.scored} scored, ${q.skipped_no_evidence} skipped for having no evidence.` +
      ` Evidence ids repaired: ${o.evidence_repairs.split} split, ${o.evidence_repairs.rewritten} rewritten, ${o.evidence_repairs.dropped} dropped (naming no turn).`,
    '',
    `Ingest through ${o.ingest.path} (one call per turn, until every index holds every turn): ${Math.round(o.ingest.per_s)} memories/s (${o.ingest.memories} in ${o.ingest.seconds} s; store p50 ${ms(o.ingest.store_latency.p50_ms)} ms, p95 ${ms(o.ingest.store_latency.p95_ms)} ms). E1 provider ${o.e1_provider}; spaces ${o.spaces.join(', ')}.`,
    '',
    `Query latency over ${o.latency.mcp_search.n} questions: \`search\` through MCP (in-memory transport) p50 ${ms(o.latency.mcp_search.p50_ms)} ms, p95 ${ms(o.latency.mcp_search.p95_ms)} ms; SearchService.hybrid p50 ${ms(o.latency.hybrid_service.p50_ms)} ms, p95 ${ms(o.latency.hybrid_service.p95_ms)} ms. Same top 50 through MCP and direct: ${pct(o.mcp_equals_hybrid_rate)} % of questions.`,
    '',
    "Recall@k (share of a question's evidence turns in the top k) and hit@k (any of them), in percent, averaged over questions. `search_mcp` = the `search` tool (limit 50, score_threshold 0, defaults otherwise); `hybrid_service` = SearchService.hybrid; `hybrid_threshold_0.25` = the same at the tool's default score_threshold (fewer than 50 results when the rest score below it); `bm25_wink` = wink-bm25-text-search per conversation" +
      `${o.bm25_stemmed ? ' (Porter2 stems)' : ''}; \`*_only\` = one signal alone, restricted to the conversation.`,
    '',
    `| system | ${HEADER} |`,
    `|---|${RULE}|`,
  );
  for (const [name, s] of Object.entries(o.systems)) L.push(`| ${name} | ${row(s.overall)} |`);
  L.push('', 'By category:', '', `| category | system | n | ${HEADER} |`, `|---|---|---|${RULE}|`);
  const cats = [...new Set(Object.values(o.systems).flatMap((s) => Object.keys(s.by_category)))].sort();
  for (const c of cats)
    for (const [name, s] of Object.entries(o.systems)) L.push(`| ${c} ${LOCOMO_CATEGORIES[Number(c)] ?? ''} | ${name} | ${s.by_category[c]?.n ?? 0} | ${row(s.by_category[c])} |`);
  L.push('');
  return L;
}
