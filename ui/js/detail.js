// The memory panel: content, where it stands (version, superseded by), its lineage from the
// transaction log, and any earlier version read back as of its transaction.
import { callTool } from './api.js';
import { citation, h, notice, put, when } from './dom.js';

function field(label, value) {
  return [h('dt', {}, label), h('dd', {}, value)];
}

export async function openMemory(panel, id, ctx) {
  panel.hidden = false;
  put(panel, h('p', { class: 'muted' }, 'Loading…'));
  const close = h('button', { class: 'close', title: 'Close', 'aria-label': 'Close', onclick: () => (panel.hidden = true) }, '×');
  try {
    const [found, lineage] = await Promise.all([callTool('query', { id }), callTool('get_node_lineage', { node_id: id }).catch((err) => ({ error: err }))]);
    const entry = found.items?.[0];
    if (!entry) return put(panel, close, notice('error', `No memory has the id ${id}.`));
    const versionBox = h('div', { class: 'version', 'data-testid': 'version' });
    const events = lineage.error
      ? [notice('error', lineage.error.message)]
      : lineage.entries.map((e) =>
          h(
            'li',
            { class: e.reverted_by ? 'reverted' : '' },
            h('span', { class: 'tx' }, `tx ${e.tx_id}`),
            ' ',
            h('strong', {}, e.event),
            ` (${e.op}) · ${when(e.at)}`,
            e.actor ? ` · ${e.actor}` : '',
            e.changed_fields.length ? ` · ${e.changed_fields.join(', ')}` : '',
            e.rationale ? h('div', { class: 'muted' }, e.rationale) : '',
            e.reverted_by ? h('div', { class: 'muted' }, `reverted by tx ${e.reverted_by}`) : '',
            e.event === 'created' || e.event === 'modified' || e.event === 'merged_in'
              ? h('button', { class: 'link', onclick: () => showVersion(versionBox, id, e.tx_id) }, 'view this version')
              : '',
          ),
        );
    put(
      panel,
      close,
      h('h2', {}, entry.topic ?? 'Memory'),
      h('p', { class: 'cite' }, citation(entry.id), ' ', h('code', {}, entry.id)),
      h('pre', { class: 'content', 'data-testid': 'detail-content' }, entry.content),
      h(
        'dl',
        { class: 'meta' },
        field('project', entry.project_id),
        field('type', entry.memory_type),
        field('tags', entry.tags.join(', ') || '—'),
        field('version', String(entry.version)),
        field('recorded', when(entry.recorded_at)),
        field('updated', when(entry.updated_at)),
        field('importance', entry.importance.toFixed(2)),
        field('confidence', entry.confidence.toFixed(2)),
        field('superseded by', entry.superseded_by ? h('button', { class: 'link', onclick: () => ctx.open(entry.superseded_by) }, entry.superseded_by) : '—'),
      ),
      h('p', {}, h('button', { onclick: () => ctx.graph(entry.id) }, 'Show neighbourhood')),
      h('h3', {}, `Lineage${lineage.state ? ` (${lineage.state})` : ''}`),
      h('ol', { class: 'lineage', 'data-testid': 'lineage' }, events),
      versionBox,
    );
  } catch (err) {
    put(panel, close, notice('error', err.message));
  }
}

async function showVersion(box, id, txId) {
  try {
    const r = await callTool('query', { id, as_of_tx_id: txId });
    const e = r.items?.[0];
    put(box, h('h3', {}, `As of tx ${txId}`), e ? h('pre', { class: 'content' }, e.content) : notice('info', 'It did not exist then.'));
  } catch (err) {
    put(box, notice('error', err.message));
  }
}
