// Building the page: every text goes in through textContent or an attribute, never as markup,
// so a memory that contains `<script>` is shown as those characters and nothing more.

const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** An HTML element: h('button', { class: 'x', onclick }, 'text', child…). Strings become text nodes. */
export function h(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element, the same way. */
export function s(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Replaces an element's children. */
export function put(el, ...children) {
  el.replaceChildren();
  return fill(el, {}, children);
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

/** A short local date-time for lists. */
export function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** "3 s ago", "5 min ago" … from an ISO time. */
export function ago(iso) {
  const ms = Date.now() - new Date(iso).getTime();
  if (!Number.isFinite(ms)) return '';
  const sec = Math.round(ms / 1000);
  if (sec < 60) return `${Math.max(0, sec)} s ago`;
  if (sec < 3600) return `${Math.round(sec / 60)} min ago`;
  if (sec < 86400) return `${Math.round(sec / 3600)} h ago`;
  return `${Math.round(sec / 86400)} d ago`;
}

/** A message line: kind is info, error or ok. */
export function notice(kind, text) {
  return h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The citation tag of a node id, as the server writes it: a ULID's 128 bits as [node_<32 hex>]. */
export function citation(id) {
  if (!/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i.test(id)) return `[${id}]`;
  let n = 0n;
  for (const ch of id.toUpperCase()) n = (n << 5n) | BigInt(CROCKFORD.indexOf(ch));
  return `[node_${n.toString(16).padStart(32, '0')}]`;
}
