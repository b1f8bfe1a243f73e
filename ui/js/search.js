// Search: the `query` tool's ranked hits with each space's rank and raw score, and the citation
// tag an agent would use; filters by project, type, tags and recording time.
import { callTool } from './api.js';
import { citation, h, notice, put, when } from './dom.js';

const TYPES = ['', 'episodic', 'semantic', 'procedural'];

function isoOf(local) {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

export function searchView(root, ctx) {
  const q = h('input', { type: 'search', name: 'query', placeholder: 'What are you looking for?', 'data-testid': 'search-query', required: true });
  const project = h('input', { name: 'project', placeholder: 'project (all)', 'data-testid': 'search-project' });
  const type = h(
    'select',
    { name: 'type', 'data-testid': 'search-type' },
    TYPES.map((t) => h('option', { value: t }, t || 'any type')),
  );
  const tags = h('input', { name: 'tags', placeholder: 'tags, comma separated' });
  const since = h('input', { type: 'datetime-local', name: 'since', title: 'recorded from' });
  const until = h('input', { type: 'datetime-local', name: 'until', title: 'recorded until' });
  const results = h('div', { class: 'results', 'data-testid': 'search-results' });
  const form = h(
    'form',
    { class: 'search', onsubmit: (e) => (e.preventDefault(), run()) },
    h('div', { class: 'row' }, q, h('button', { type: 'submit' }, 'Search')),
    h('div', { class: 'row filters' }, project, type, tags, h('label', {}, 'from ', since), h('label', {}, 'to ', until)),
  );
  put(root, h('h2', {}, 'Search'), form, results);

  async function run() {
    const args = { query: q.value, limit: 20 };
    if (project.value.trim()) args.project_id = project.value.trim();
    if (type.value) args.memory_type = type.value;
    const tagList = tags.value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    if (tagList.length) args.tags = tagList;
    const start = isoOf(since.value);
    const end = isoOf(until.value);
    if (start || end) args.time_range = { ...(start ? { start } : {}), ...(end ? { end } : {}) };
    put(results, h('p', { class: 'muted' }, 'Searching…'));
    try {
      const r = await callTool('query', args);
      const items = r.items ?? [];
      put(
        results,
        h('p', { class: 'muted' }, `${items.length} hit${items.length === 1 ? '' : 's'} for “`, r.query ?? q.value, '”', r.hint ? ` — ${r.hint.message}` : ''),
        h(
          'ol',
          { class: 'hits' },
          items.map((item, i) => hit(item, i, ctx)),
        ),
      );
    } catch (err) {
      put(results, notice('error', err.message));
    }
  }

  return {
    show(query) {
      if (query) {
        q.value = query;
        void run();
      }
      q.focus();
    },
  };
}

function hit(item, i, ctx) {
  const signals = Object.entries(item.signals ?? {}).sort((a, b) => a[1].rank - b[1].rank);
  const score = item.score ?? 0;
  return h(
    'li',
    { class: 'hit', 'data-testid': 'hit', dataset: { id: item.id } },
    h(
      'div',
      { class: 'hit-head' },
      h('span', { class: 'rank' }, `#${i + 1}`),
      h('span', { class: 'bar', title: `fused score ${score.toFixed(3)}` }, bar(score)),
      h('span', { class: 'score' }, score.toFixed(3)),
      h('code', { class: 'cite', title: 'citation tag' }, citation(item.id)),
    ),
    item.topic ? h('div', { class: 'topic' }, item.topic) : '',
    h('p', { class: 'text', 'data-testid': 'hit-text' }, item.content),
    h(
      'div',
      { class: 'hit-meta' },
      h('span', {}, item.project_id),
      h('span', {}, item.memory_type),
      item.tags.length ? h('span', {}, item.tags.join(', ')) : '',
      h('span', {}, when(item.recorded_at)),
      item.superseded_by ? h('span', { class: 'warn' }, `superseded by ${item.superseded_by}`) : '',
    ),
    h(
      'div',
      { class: 'signals', 'data-testid': 'signals' },
      signals.map(([space, s]) => h('span', { class: 'chip', title: `${space}: rank ${s.rank}, raw score ${s.score}` }, `${space} #${s.rank} · ${Number(s.score).toFixed(3)}`)),
    ),
    h('div', { class: 'actions' }, h('button', { onclick: () => ctx.open(item.id) }, 'Open'), h('button', { onclick: () => ctx.graph(item.id) }, 'Graph')),
  );
}

/** A score bar; widths go through the CSSOM, which the page's CSP allows (style attributes it does not). */
function bar(score) {
  const fill = h('span', { class: 'fill' });
  fill.style.width = `${Math.round(Math.max(0, Math.min(1, score)) * 100)}%`;
  return fill;
}
