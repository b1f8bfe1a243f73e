/**
 * Dependency-free SVG charts for the results folder: grouped bars and lines with labelled axes.
 */
export interface Series {
  name: string;
  values: Array<number | null>;
}

const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#9c755f'];
const W = 720;
const H = 360;
const M = { top: 40, right: 170, bottom: 60, left: 70 };

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function niceMax(x: number): number {
  if (!(x > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}

function frame(title: string, yLabel: string, yMax: number, log: boolean, subtitle: string): string[] {
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.left}" y="18" font-size="14" font-weight="bold">${esc(title)}</text>`,
    `<text x="${M.left}" y="32" fill="#555">${esc(subtitle)}</text>`,
    `<text transform="translate(14 ${(H - M.bottom + M.top) / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`,
  ];
  const ph = H - M.top - M.bottom;
  const ticks = log ? logTicks(yMax) : [0, 0.25, 0.5, 0.75, 1].map((f) => f * yMax);
  for (const t of ticks) {
    const y = M.top + ph - yScale(t, yMax, log) * ph;
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    out.push(`<text x="${M.left - 6}" y="${y + 4}" text-anchor="end">${fmt(t)}</text>`);
  }
  return out;
}

function logTicks(max: number): number[] {
  const out: number[] = [];
  for (let t = 0.01; t <= max * 1.0001; t *= 10) out.push(t);
  return out;
}

function yScale(v: number, max: number, log: boolean): number {
  if (!log) return Math.max(0, v) / max;
  const lo = Math.log10(0.01);
  return (Math.log10(Math.max(v, 0.01)) - lo) / (Math.log10(max) - lo);
}

function fmt(v: number): string {
  if (v === 0) return '0';
  if (Math.abs(v) >= 1000) return `${Math.round(v / 100) / 10}k`;
  if (Math.abs(v) >= 10) return String(Math.round(v));
  return String(Math.round(v * 1000) / 1000);
}

function legend(series: readonly Series[]): string[] {
  return series.map((s, i) => {
    const y = M.top + 8 + i * 16;
    return `<rect x="${W - M.right + 12}" y="${y - 8}" width="10" height="10" fill="${COLORS[i % COLORS.length]}"/><text x="${W - M.right + 26}" y="${y + 1}">${esc(s.name)}</text>`;
  });
}

export function barChart(opts: {
  title: string;
  subtitle: string;
  yLabel: string;
  categories: string[];
  series: Series[];
  log?: boolean;
  target?: { value: number; label: string };
}): string {
  const all = opts.series.flatMap((s) => s.values).filter((v): v is number => v !== null && Number.isFinite(v));
  const yMax = niceMax(Math.max(...all, opts.target?.value ?? 0, 1e-9));
  const log = opts.log ?? false;
  const out = frame(opts.title, opts.yLabel, yMax, log, opts.subtitle);
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const groupW = pw / Math.max(1, opts.categories.length);
  const barW = (groupW * 0.8) / Math.max(1, opts.series.length);
  opts.categories.forEach((c, ci) => {
    out.push(`<text x="${M.left + groupW * (ci + 0.5)}" y="${H - M.bottom + 16}" text-anchor="middle">${esc(c)}</text>`);
    opts.series.forEach((s, si) => {
      const v = s.values[ci];
      if (v === null || v === undefined || !Number.isFinite(v)) return;
      const h = yScale(v, yMax, log) * ph;
      const x = M.left + groupW * ci + groupW * 0.1 + barW * si;
      out.push(`<rect x="${x}" y="${M.top + ph - h}" width="${barW - 1}" height="${h}" fill="${COLORS[si % COLORS.length]}"><title>${esc(s.name)}: ${v}</title></rect>`);
    });
  });
  if (opts.target) {
    const y = M.top + ph - yScale(opts.target.value, yMax, log) * ph;
    out.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${y}" y2="${y}" stroke="#c00" stroke-dasharray="5 3"/><text x="${W - M.right - 4}" y="${y - 4}" text-anchor="end" fill="#c00">${esc(opts.target.label)}</text>`,
    );
  }
  out.push(...legend(opts.series), '</svg>');
  return out.join('\n') + '\n';
}

export function lineChart(opts: {
  title: string;
  subtitle: string;
  yLabel: string;
  xLabels: string[];
  series: Series[];
  log?: boolean;
  target?: { value: number; label: string };
}): string {
  const all = opts.series.flatMap((s) => s.values).filter((v): v is number => v !== null && Number.isFinite(v));
  const yMax = niceMax(Math.max(...all, opts.target?.value ?? 0, 1e-9));
  const log = opts.log ?? false;
  const out = frame(opts.title, opts.yLabel, yMax, log, opts.subtitle);
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const n = opts.xLabels.length;
  const xAt = (i: number) => M.left + (n <= 1 ? pw / 2 : (pw * i) / (n - 1));
  opts.xLabels.forEach((l, i) => out.push(`<text x="${xAt(i)}" y="${H - M.bottom + 16}" text-anchor="middle">${esc(l)}</text>`));
  opts.series.forEach((s, si) => {
    const color = COLORS[si % COLORS.length];
    const pts = s.values.map((v, i) => (v === null || !Number.isFinite(v) ? null : ([xAt(i), M.top + ph - yScale(v, yMax, log) * ph] as const))).filter((p) => p !== null);
    if (pts.length > 1) out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map((p) => p!.join(',')).join(' ')}"/>`);
    for (const p of pts) out.push(`<circle cx="${p![0]}" cy="${p![1]}" r="3" fill="${color}"/>`);
  });
  if (opts.target) {
    const y = M.top + ph - yScale(opts.target.value, yMax, log) * ph;
    out.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${y}" y2="${y}" stroke="#c00" stroke-dasharray="5 3"/><text x="${W - M.right - 4}" y="${y - 4}" text-anchor="end" fill="#c00">${esc(opts.target.label)}</text>`,
    );
  }
  out.push(...legend(opts.series), '</svg>');
  return out.join('\n') + '\n';
}
