// Health: /healthz in tables — each dependency, each embedding space with its model and index
// size, the queue and the embedding backlog (how far search lags behind writes).
import { getJson } from './api.js';
import { h, notice, put } from './dom.js';

function row(...cells) {
  return h(
    'tr',
    {},
    cells.map((c) => h('td', {}, c)),
  );
}

function table(head, rows, testid) {
  return h(
    'table',
    { 'data-testid': testid },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        head.map((t) => h('th', {}, t)),
      ),
    ),
    h('tbody', {}, rows),
  );
}

function badge(status) {
  return h('span', { class: `badge ${status}` }, status);
}

export function healthView(root) {
  const body = h('div', { 'data-testid': 'health' });
  put(root, h('h2', {}, 'Health'), h('p', {}, h('button', { onclick: () => refresh() }, 'Refresh')), body);

  async function refresh() {
    try {
      const r = await getJson('/healthz');
      const counts = r.queue?.counts;
      const sizes = r.index?.sizes ?? {};
      const spaces = (r.spaces ?? []).map((sp) =>
        row(
          h('strong', {}, sp.id),
          sp.name,
          sp.encoder ? sp.encoder.model_id : h('span', { class: 'muted' }, sp.status),
          sp.encoder ? String(sp.encoder.dim) : '',
          sp.index,
          sizes[sp.id] !== undefined ? String(sizes[sp.id]) : '',
          String(sp.weight),
        ),
      );
      put(
        body,
        h('p', {}, 'Status ', badge(r.status), ` · version ${r.version}`),
        r.problems?.length
          ? h(
              'ul',
              { class: 'problems' },
              r.problems.map((p) => h('li', {}, p)),
            )
          : '',
        h('h3', {}, 'Dependencies'),
        table(
          ['dependency', 'status', 'detail'],
          [
            row('store', badge(r.store.status), `${r.store.driver}, last transaction ${r.store.last_tx_id ?? '—'}`),
            row(
              'job queue',
              badge(r.queue.status),
              `${r.queue.backend}, consumed by ${r.queue.consumer}${counts ? `; ${counts.waiting} waiting, ${counts.active} active, ${counts.failed} failed` : ''}`,
            ),
            row(
              'embedding backlog',
              badge(r.outbox ? (r.outbox.oldest_ms > 60_000 ? 'degraded' : 'up') : 'down'),
              r.outbox
                ? `${r.outbox.depth} memories owe vectors${r.outbox.depth ? `; oldest waits ${(r.outbox.oldest_ms / 1000).toFixed(1)} s (queue lag)` : ''}`
                : 'unknown (store down)',
            ),
            row('vector indexes', badge(r.usearch?.reachable ? 'up' : 'down'), `feed position ${r.index?.feed_position ?? '—'}`),
          ],
          'dependencies',
        ),
        h('h3', {}, 'Spaces'),
        table(['space', 'name', 'model', 'dim', 'index', 'vectors', 'weight'], spaces, 'spaces'),
      );
    } catch (err) {
      put(body, notice('error', err.message));
    }
  }

  return { show: () => void refresh() };
}
