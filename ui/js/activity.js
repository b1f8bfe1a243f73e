// Activity: the transaction log as a timeline (history), kept live by the change feed
// (GET /api/changes) or, where that is not reachable, by polling; undo behind the write switch.
import { callTool, on, streamEvents, writes } from './api.js';
import { ago, h, notice, put, when } from './dom.js';

const POLL_MS = 5_000;

export function activityView(root, ctx) {
  const list = h('ol', { class: 'timeline', 'data-testid': 'timeline' });
  const live = h('span', { class: 'live', 'data-testid': 'live' }, 'not connected');
  const message = h('div');
  const opFilter = h('input', { name: 'op', placeholder: 'only op (store, relate, undo, dream.nrem…)', size: 30 });
  put(
    root,
    h('h2', {}, 'Activity'),
    h('form', { class: 'row', onsubmit: (e) => (e.preventDefault(), refresh()) }, opFilter, h('button', { type: 'submit' }, 'Filter'), live),
    message,
    list,
  );
  let visible = false;
  let feed = null;
  let poller = null;
  let pending = null;
  let lastItems = [];
  on('writes', () => render(lastItems));

  async function refresh() {
    try {
      const r = await callTool('history', { limit: 40, ...(opFilter.value.trim() ? { op: opFilter.value.trim() } : {}) });
      lastItems = r.items;
      render(r.items);
      put(message);
    } catch (err) {
      put(message, notice('error', err.message));
    }
  }

  /** Several transactions in a burst are one refresh. */
  function soon() {
    if (pending) return;
    pending = setTimeout(() => {
      pending = null;
      void refresh();
    }, 250);
  }

  function render(items) {
    put(list, items.length ? items.map(item) : h('li', { class: 'muted' }, 'No transactions yet.'));
  }

  function item(t) {
    const undo = h(
      'button',
      { class: 'write', disabled: !writes() || t.reverted_by !== null, 'data-testid': 'undo', onclick: () => undoTx(t.tx_id) },
      t.reverted_by !== null ? 'undone' : 'Undo',
    );
    return h(
      'li',
      { class: `tx-card${t.reverted_by !== null ? ' reverted' : ''}`, 'data-testid': 'tx', dataset: { tx: String(t.tx_id), op: t.op } },
      h(
        'div',
        { class: 'tx-head' },
        h('span', { class: 'tx' }, `tx ${t.tx_id}`),
        h('strong', { class: 'op' }, t.op),
        h('span', { class: 'muted', title: when(t.created_at) }, ago(t.created_at)),
        t.actor ? h('span', { class: 'chip' }, t.actor) : '',
        undo,
      ),
      t.rationale ? h('div', { class: 'muted' }, t.rationale) : '',
      t.reverted_by !== null ? h('div', { class: 'muted' }, `reverted by tx ${t.reverted_by}`) : '',
      t.reverts.length ? h('div', { class: 'muted' }, `reverts tx ${t.reverts.join(', ')}`) : '',
      h(
        'ul',
        { class: 'changes' },
        t.changes
          .slice(0, 8)
          .map((c) =>
            h(
              'li',
              {},
              `${c.change_type} ${c.entity} `,
              c.entity === 'node' ? h('button', { class: 'link', onclick: () => ctx.open(c.entity_id) }, c.entity_id) : h('code', {}, c.entity_id),
            ),
          ),
        t.changes_total > 8 ? h('li', { class: 'muted' }, `…and ${t.changes_total - 8} more`) : '',
      ),
    );
  }

  async function undoTx(txId) {
    if (!writes()) return;
    try {
      const r = await callTool('undo', { tx_id: txId, scope: 'all', rationale: 'undone from the memory explorer' });
      ctx.status(`Undid tx ${r.reverted_tx_ids.join(', ')} in tx ${r.tx_id}.`);
      await refresh();
    } catch (err) {
      put(message, notice('error', err.message));
    }
  }

  function connect() {
    feed = new AbortController();
    const signal = feed.signal;
    put(live, 'connecting…');
    streamEvents(
      '/api/changes',
      () => soon(),
      signal,
      () => put(live, 'live (change feed)'),
    )
      .then(() => {
        if (!signal.aborted) fallBack('the change feed ended');
      })
      .catch((err) => fallBack(err.message));
  }

  function fallBack(why) {
    if (!visible || poller) return;
    put(live, `polling every ${POLL_MS / 1000} s (${why})`);
    poller = setInterval(refresh, POLL_MS);
  }

  return {
    show() {
      visible = true;
      void refresh();
      if (!feed && !poller) connect();
    },
    hide() {
      visible = false;
      feed?.abort();
      feed = null;
      clearInterval(poller);
      poller = null;
      put(live, 'paused');
    },
  };
}
