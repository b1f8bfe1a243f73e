// Graph: a memory's neighbourhood (get_neighborhood, depth 1–3) as an SVG node-link picture with
// each edge's type and weight; click a node to select it, then expand it or open it. Relating
// two memories (relate) is a write, behind the switch.
import { callTool, on, writes } from './api.js';
import { h, notice, put, s } from './dom.js';
import { layout } from './layout.js';

const EDGE_TYPES = ['Relational', 'Semantic', 'Temporal', 'Causal', 'Hierarchical', 'Shortcut'];
const W = 960;
const H = 560;

function short(text, n) {
  const t = String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

export function graphView(root, ctx) {
  const nodes = new Map();
  const edges = new Map();
  let center = null;
  let selected = null;

  const idInput = h('input', { name: 'node', placeholder: 'memory id or [node_…] tag', 'data-testid': 'graph-id', size: 34 });
  const depth = h(
    'select',
    { name: 'depth', 'data-testid': 'graph-depth' },
    [1, 2, 3].map((d) => h('option', { value: d }, `depth ${d}`)),
  );
  const minWeight = h('input', { type: 'number', name: 'min_weight', min: 0, max: 1, step: 0.05, value: 0.1, title: 'minimum edge weight' });
  const picture = h('div', { class: 'picture', 'data-testid': 'graph-picture' });
  const info = h('div', { class: 'node-info', 'data-testid': 'graph-info' });
  const message = h('div', { class: 'graph-message' });

  const relObject = h('input', { name: 'object', placeholder: 'other memory id', 'data-testid': 'relate-object', size: 30 });
  const relPredicate = h('input', { name: 'predicate', value: 'related_to', 'data-testid': 'relate-predicate', size: 14 });
  const relType = h(
    'select',
    { name: 'edge_type' },
    EDGE_TYPES.slice(0, 5).map((t) => h('option', { value: t }, t)),
  );
  const relWeight = h('input', { type: 'number', name: 'weight', min: 0, max: 1, step: 0.05, value: 0.8, size: 4 });
  const relButton = h('button', { type: 'submit', class: 'write', 'data-testid': 'relate-submit', disabled: true }, 'Relate');
  const relateForm = h(
    'form',
    { class: 'row relate', onsubmit: (e) => (e.preventDefault(), relate()) },
    h('span', { class: 'muted' }, 'Relate the centre to'),
    relObject,
    relPredicate,
    relType,
    relWeight,
    relButton,
  );
  on('writes', (enabled) => (relButton.disabled = !enabled));

  put(
    root,
    h('h2', {}, 'Graph'),
    h(
      'form',
      { class: 'row', onsubmit: (e) => (e.preventDefault(), load(idInput.value.trim())) },
      idInput,
      depth,
      minWeight,
      h('button', { type: 'submit', 'data-testid': 'graph-show' }, 'Show'),
    ),
    relateForm,
    message,
    h('div', { class: 'graph-body' }, picture, info),
    h(
      'p',
      { class: 'legend' },
      EDGE_TYPES.map((t) => h('span', { class: `key edge-${t}` }, t)),
    ),
  );

  async function fetchAround(id, d) {
    return callTool('get_neighborhood', { node_id: id, depth: d, min_weight: Number(minWeight.value) || 0, limit: 100 });
  }

  function merge(r) {
    const add = (n) => {
      const known = nodes.get(n.id);
      if (known) return Object.assign(known, { name: n.name, kind: n.kind, snippet: n.snippet, project_id: n.project_id });
      const near = nodes.get(n.via);
      // A new node starts next to the one it was reached from, so an expansion grows in place.
      nodes.set(n.id, {
        id: n.id,
        name: n.name,
        kind: n.kind,
        snippet: n.snippet,
        project_id: n.project_id,
        ...(near ? { x: near.x + 30 * Math.cos(nodes.size), y: near.y + 30 * Math.sin(nodes.size) } : {}),
      });
    };
    add(r.node);
    for (const n of r.neighbors) {
      add(n);
      const [source, target] = n.direction === 'incoming' ? [n.id, n.via] : [n.via, n.id];
      edges.set(n.edge_id, {
        id: n.edge_id,
        source,
        target,
        type: n.edge_type,
        weight: n.weight,
        predicate: n.predicate,
        directed: n.direction !== 'undirected',
        method: n.method,
      });
    }
  }

  async function load(id) {
    if (!id) return;
    put(message);
    try {
      const r = await fetchAround(id, Number(depth.value));
      nodes.clear();
      edges.clear();
      center = r.node.id;
      idInput.value = center;
      merge(r);
      selected = center;
      if (`#graph/${encodeURIComponent(center)}` !== location.hash) history.replaceState(null, '', `#graph/${encodeURIComponent(center)}`);
      put(
        message,
        h(
          'p',
          { class: 'muted', 'data-testid': 'graph-summary' },
          `${r.neighbors.length} neighbour${r.neighbors.length === 1 ? '' : 's'} within ${r.depth} hop${r.depth === 1 ? '' : 's'}${r.truncated ? ' (truncated)' : ''}.`,
        ),
      );
      draw(300);
    } catch (err) {
      put(message, notice('error', err.message));
    }
  }

  async function expand(id) {
    try {
      merge(await fetchAround(id, 1));
      draw(150);
    } catch (err) {
      put(message, notice('error', err.message));
    }
  }

  async function relate() {
    if (!writes()) return put(message, notice('error', 'Turn on "Enable writes" to relate memories.'));
    try {
      const r = await callTool('relate', {
        subject: center,
        predicate: relPredicate.value.trim(),
        object: relObject.value.trim(),
        edge_type: relType.value,
        weight: Number(relWeight.value),
      });
      ctx.status(`Related in transaction ${r.tx_id ?? '(already there)'}.`);
      relObject.value = '';
      await load(center);
    } catch (err) {
      put(message, notice('error', err.message));
    }
  }

  function draw(iterations) {
    const list = [...nodes.values()];
    for (const n of list) n.fixed = false;
    layout(list, [...edges.values()], { width: W, height: H, iterations });
    const svg = s(
      'svg',
      { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'neighbourhood graph', 'data-testid': 'graph-svg' },
      s(
        'defs',
        {},
        s(
          'marker',
          { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerUnits: 'userSpaceOnUse', markerWidth: 11, markerHeight: 11, orient: 'auto' },
          s('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrowhead' }),
        ),
      ),
    );
    for (const e of edges.values()) {
      const a = nodes.get(e.source);
      const b = nodes.get(e.target);
      if (!a || !b) continue;
      // A directed edge stops at the rim of its target, where the arrowhead then points at it.
      const len = Math.max(Math.hypot(b.x - a.x, b.y - a.y), 1);
      const cut = e.directed ? radius(b) + 2 : 0;
      const x2 = b.x - ((b.x - a.x) / len) * cut;
      const y2 = b.y - ((b.y - a.y) / len) * cut;
      svg.append(
        s(
          'g',
          { class: `edge edge-${e.type}`, 'data-testid': 'graph-edge', dataset: { type: e.type, weight: String(e.weight) } },
          s(
            'line',
            { x1: a.x, y1: a.y, x2, y2, 'stroke-width': 1 + 3 * e.weight, 'marker-end': e.directed ? 'url(#arrow)' : null },
            s('title', {}, `${e.type} ${e.predicate} · weight ${e.weight} · ${e.method}`),
          ),
          s('text', { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, class: 'edge-label' }, `${e.type} ${Number(e.weight).toFixed(2)}`),
        ),
      );
    }
    for (const n of nodes.values()) {
      const g = s(
        'g',
        {
          class: `node kind-${n.kind}${n.id === center ? ' center' : ''}${n.id === selected ? ' selected' : ''}`,
          transform: `translate(${n.x.toFixed(1)} ${n.y.toFixed(1)})`,
          tabindex: 0,
          'data-testid': 'graph-node',
          dataset: { id: n.id },
          onclick: () => select(n.id),
          ondblclick: () => expand(n.id),
        },
        s('circle', { r: radius(n) }),
        s('text', { x: 0, y: radius(n) + 14, class: 'node-label' }, short(n.name, 30)),
        s('title', {}, `${n.name}\n${n.snippet}`),
      );
      svg.append(g);
    }
    put(picture, svg);
    showInfo();
  }

  function radius(n) {
    return n.id === center ? 14 : 10;
  }

  function select(id) {
    selected = id;
    for (const g of picture.querySelectorAll('g.node')) g.classList.toggle('selected', g.dataset.id === id);
    showInfo();
  }

  function showInfo() {
    const n = nodes.get(selected);
    if (!n) return put(info, h('p', { class: 'muted' }, 'Click a node to select it.'));
    const degree = [...edges.values()].filter((e) => e.source === n.id || e.target === n.id);
    put(
      info,
      h('h3', {}, short(n.name, 60)),
      h('p', { class: 'muted' }, `${n.kind} · ${n.project_id} · ${degree.length} edge${degree.length === 1 ? '' : 's'} shown`),
      h('p', { class: 'snippet' }, n.snippet),
      h(
        'div',
        { class: 'actions' },
        h('button', { onclick: () => expand(n.id), 'data-testid': 'graph-expand' }, 'Expand'),
        n.kind !== 'entity' ? h('button', { onclick: () => ctx.open(n.id), 'data-testid': 'graph-open' }, 'Open') : '',
        n.id !== center ? h('button', { onclick: () => ctx.graph(n.id) }, 'Centre here') : '',
      ),
      h(
        'ul',
        { class: 'edges' },
        degree.map((e) =>
          h(
            'li',
            {},
            `${e.type} “${e.predicate}” · ${Number(e.weight).toFixed(2)} · ${e.method} · ${e.source === n.id ? '→ ' : '← '}${short(nodes.get(e.source === n.id ? e.target : e.source)?.name, 40)}`,
          ),
        ),
      ),
    );
  }

  return {
    show(id) {
      if (id && id !== center) {
        idInput.value = id;
        void load(id);
      } else if (!center) put(message, h('p', { class: 'muted' }, 'Give a memory id, or pick “Graph” on a search hit.'));
    },
  };
}
