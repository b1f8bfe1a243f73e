// A small force-directed layout (Fruchterman–Reingold with cooling) in plain JS: nodes repel,
// edges pull their ends together, a weak pull keeps everything near the middle. Deterministic:
// new nodes start on a circle (or next to the node they were reached from), no randomness.

/**
 * Moves `nodes` ({id, x?, y?, fixed?}) in place for `edges` ({source, target}) inside a
 * width × height box; positions already set are kept as the starting point.
 */
export function layout(nodes, edges, { width, height, iterations = 300 } = {}) {
  const n = nodes.length;
  if (n === 0) return;
  const cx = width / 2;
  const cy = height / 2;
  const k = Math.sqrt((width * height) / Math.max(n, 1)) * 0.55;
  const byId = new Map(nodes.map((node) => [node.id, node]));
  nodes.forEach((node, i) => {
    if (Number.isFinite(node.x) && Number.isFinite(node.y)) return;
    const a = (2 * Math.PI * i) / n;
    const r = Math.min(width, height) * 0.3;
    node.x = cx + r * Math.cos(a);
    node.y = cy + r * Math.sin(a);
  });
  const links = edges.map((e) => [byId.get(e.source), byId.get(e.target)]).filter(([a, b]) => a && b && a !== b);
  let temperature = Math.min(width, height) / 8;
  const cooling = temperature / (iterations + 1);
  for (let it = 0; it < iterations; it++) {
    const dx = new Float64Array(n);
    const dy = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        let ex = nodes[i].x - nodes[j].x;
        let ey = nodes[i].y - nodes[j].y;
        let d = Math.hypot(ex, ey);
        if (d < 0.01) {
          // Two nodes on one spot: separate them along a fixed direction.
          ex = 0.01 * (1 + (i % 3));
          ey = 0.01 * (1 + (j % 3));
          d = Math.hypot(ex, ey);
        }
        const f = (k * k) / d;
        dx[i] += (ex / d) * f;
        dy[i] += (ey / d) * f;
        dx[j] -= (ex / d) * f;
        dy[j] -= (ey / d) * f;
      }
    }
    const index = new Map(nodes.map((node, i) => [node, i]));
    for (const [a, b] of links) {
      const ex = a.x - b.x;
      const ey = a.y - b.y;
      const d = Math.max(Math.hypot(ex, ey), 0.01);
      const f = (d * d) / k;
      const ia = index.get(a);
      const ib = index.get(b);
      dx[ia] -= (ex / d) * f;
      dy[ia] -= (ey / d) * f;
      dx[ib] += (ex / d) * f;
      dy[ib] += (ey / d) * f;
    }
    for (let i = 0; i < n; i++) {
      const node = nodes[i];
      if (node.fixed) continue;
      dx[i] += (cx - node.x) * 0.05 * (k / 50);
      dy[i] += (cy - node.y) * 0.05 * (k / 50);
      const d = Math.max(Math.hypot(dx[i], dy[i]), 0.01);
      const step = Math.min(d, temperature);
      node.x = Math.min(width - 40, Math.max(40, node.x + (dx[i] / d) * step));
      node.y = Math.min(height - 30, Math.max(30, node.y + (dy[i] / d) * step));
    }
    temperature = Math.max(temperature - cooling, 0.5);
  }
}
