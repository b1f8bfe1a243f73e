/**
 * Hyperbolic entailment cones on the Poincaré ball, fitted to a hierarchy (child → parent pairs):
 * Poincaré embeddings (Nickel & Kiela 2017, "Poincaré Embeddings for Learning Hierarchical
 * Representations"), then entailment cones (Ganea, Bécigneul & Hofmann 2018, "Hyperbolic
 * Entailment Cones for Learning Hierarchical Embeddings") initialised from them. Both phases are
 * Riemannian SGD: the Euclidean gradient rescaled by the inverse metric (1 − |θ|²)² / 4, then a
 * projection back into the ball. Phase 1 uses the closed-form gradient of the distance; the cone
 * energy's gradient is taken by central differences (low dimension keeps that cheap).
 */

export type Point = number[];
/** Learning rates (tuned on small taxonomies: every closure pair entailed, no sibling entailed). */
const PHASE1_LR = 0.1;
const CONE_LR = 1;
/** Phase 1 keeps points inside this norm: negatives alone would push a small graph to the boundary, where RSGD freezes. */
const PHASE1_MAX_NORM = 0.9;

/** Cone aperture constant K of Ganea et al.: ψ(x) = asin(K (1 − |x|²) / |x|). */
export const CONE_K = 0.1;
/** Points are kept at norm ≥ ε, where the aperture reaches π/2, so ψ is defined everywhere. */
export const CONE_MIN_NORM = (Math.sqrt(1 + 4 * CONE_K * CONE_K) - 1) / (2 * CONE_K);
const MAX_NORM = 1 - 1e-5;
const MAX_STEP = 0.01;

// Loops rather than reduce/map: the fit calls these millions of times. Each sums left to right
// from 0, as the reduce it replaced did, so a fit gives the same coordinates to the bit.
function dot(a: Point, b: Point): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s = s + a[i]! * b[i]!;
  return s;
}
const norm2 = (a: Point) => dot(a, a);
function squaredDistance(u: Point, v: Point): number {
  let s = 0;
  for (let i = 0; i < u.length; i++) s = s + (u[i]! - v[i]!) ** 2;
  return s;
}

export function poincareDistance(u: Point, v: Point): number {
  const diff = squaredDistance(u, v);
  return Math.acosh(1 + (2 * diff) / ((1 - norm2(u)) * (1 - norm2(v))));
}

/** ∂d(u, v)/∂u (Nickel & Kiela 2017, eq. 4). */
function distanceGradient(u: Point, v: Point): Point {
  const a = 1 - norm2(u);
  const b = 1 - norm2(v);
  const diff = squaredDistance(u, v);
  const g = 1 + (2 * diff) / (a * b);
  const scale = 4 / (b * Math.sqrt(Math.max(g * g - 1, 1e-12)));
  const uv = dot(u, v);
  const nv = norm2(v);
  return u.map((x, i) => scale * (((nv - 2 * uv + 1) / (a * a)) * x - v[i]! / a));
}

/** Half-aperture ψ(x) of the cone at x. */
export function coneAperture(x: Point): number {
  const n = Math.sqrt(norm2(x));
  return Math.asin(Math.min(1, (CONE_K * (1 - n * n)) / Math.max(n, 1e-9)));
}

/** Angle Ξ(x, y) at x between the cone's axis and y (Ganea et al. 2018, eq. 28). */
export function coneAngle(x: Point, y: Point): number {
  const nx = norm2(x);
  const ny = norm2(y);
  const xy = dot(x, y);
  const diff = Math.sqrt(squaredDistance(x, y));
  const denom = Math.sqrt(nx) * diff * Math.sqrt(Math.max(1 + nx * ny - 2 * xy, 1e-12));
  if (denom < 1e-12) return 0;
  return Math.acos(Math.max(-1, Math.min(1, (xy * (1 + nx) - nx * (1 + ny)) / denom)));
}

/** How far y lies outside x's cone (0 inside): the energy E(x, y) = max(0, Ξ(x, y) − ψ(x)). */
export function coneEnergy(x: Point, y: Point): number {
  return Math.max(0, coneAngle(x, y) - coneAperture(x));
}

function project(p: Point, minNorm: number, maxNorm = MAX_NORM): Point {
  const n = Math.sqrt(norm2(p));
  if (n >= maxNorm) return p.map((x) => (x / n) * maxNorm);
  if (n < minNorm) return n < 1e-12 ? p.map((_, i) => (i === 0 ? minNorm : 0)) : p.map((x) => (x / n) * minNorm);
  return p;
}

/** Riemannian SGD step: θ ← proj(θ − η (1 − |θ|²)²/4 ∇E). */
function rsgdStep(p: Point, grad: Point, lr: number, minNorm: number, maxNorm = MAX_NORM): Point {
  const s = ((1 - norm2(p)) ** 2 / 4) * lr;
  // Clipped: near the cone's apex the angle's gradient is steep enough to throw a point across the ball.
  const len = s * Math.sqrt(norm2(grad));
  const c = len > MAX_STEP ? MAX_STEP / len : 1;
  return project(
    p.map((x, i) => x - c * s * grad[i]!),
    minNorm,
    maxNorm,
  );
}

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const POINCARE_EPOCHS = 60;
const CONE_EPOCHS = 300;
/** Epochs of a fit with the default options (both phases). */
export const FIT_EPOCHS = POINCARE_EPOCHS + CONE_EPOCHS;

export interface FitOptions {
  dim?: number;
  seed?: number;
  /** Directions to start from (e.g. a node's E1 vector, randomly projected); random otherwise. */
  init?: ReadonlyMap<string, Point>;
  poincareEpochs?: number;
  coneEpochs?: number;
  negatives?: number;
  /** Most (child, ancestor) pairs visited per epoch: bounds the cost of large hierarchies. */
  maxPairsPerEpoch?: number;
  onEpoch?: (done: number, total: number) => void | Promise<void>;
}

/** Every (descendant, ancestor) pair of the hierarchy: what the embedding must entail. */
export function transitiveClosure(edges: ReadonlyArray<readonly [string, string]>, maxPairs = 200_000): Array<[string, string]> {
  const parents = new Map<string, string[]>();
  for (const [c, p] of edges) parents.set(c, [...(parents.get(c) ?? []), p]);
  const pairs: Array<[string, string]> = [];
  for (const child of parents.keys()) {
    const seen = new Set<string>([child]);
    const stack = [...parents.get(child)!];
    while (stack.length > 0 && pairs.length < maxPairs) {
      const a = stack.pop()!;
      if (seen.has(a)) continue;
      seen.add(a);
      pairs.push([child, a]);
      stack.push(...(parents.get(a) ?? []));
    }
  }
  return pairs;
}

/** Fits coordinates to child → parent edges; returns a point per node. */
export async function fitEntailmentCones(edges: ReadonlyArray<readonly [string, string]>, opts: FitOptions = {}): Promise<Map<string, Point>> {
  const dim = opts.dim ?? 5;
  const rand = prng(opts.seed ?? 1);
  const nodes = [...new Set(edges.flat())];
  // Nodes by index from here on: string keys for the "related" test and the point lookups were
  // most of a fit's time (9,000 pairs: ~50 s). The random draws and the arithmetic are the same,
  // in the same order, so the coordinates are too.
  const indexOf = new Map(nodes.map((n, i) => [n, i]));
  const pairs = transitiveClosure(edges).map(([c, a]) => [indexOf.get(c)!, indexOf.get(a)!] as const);
  const N = nodes.length;
  const related = new Set<number>();
  for (const [c, a] of pairs) related.add(c * N + a).add(a * N + c);
  const pts: Point[] = nodes.map((n) => {
    const dir = opts.init?.get(n) ?? Array.from({ length: dim }, () => rand() * 2 - 1);
    const len = Math.sqrt(norm2(dir)) || 1;
    return dir.map((x) => (x / len) * 1e-3 * (0.5 + rand()));
  });
  const negativesFor = (u: number, k: number): number[] => {
    const out: number[] = [];
    for (let t = 0; t < k * 4 && out.length < k && N > 2; t++) {
      const v = Math.floor(rand() * N);
      if (v !== u && !related.has(u * N + v)) out.push(v);
    }
    return out;
  };
  const sample = (): Array<readonly [number, number]> => {
    const max = opts.maxPairsPerEpoch ?? 20_000;
    const list = pairs.length <= max ? [...pairs] : Array.from({ length: max }, () => pairs[Math.floor(rand() * pairs.length)]!);
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [list[i], list[j]] = [list[j]!, list[i]!];
    }
    return list;
  };
  const k = opts.negatives ?? 10;
  const pEpochs = opts.poincareEpochs ?? POINCARE_EPOCHS;
  const cEpochs = opts.coneEpochs ?? CONE_EPOCHS;

  // Phase 1: Poincaré embeddings, softmax over one positive and k negatives of -d(u, v).
  for (let epoch = 0; epoch < pEpochs; epoch++) {
    const lr = epoch < 10 ? PHASE1_LR / 10 : PHASE1_LR; // burn-in at lr / 10, as Nickel & Kiela do
    for (const [u, v] of sample()) {
      const cands = [v, ...negativesFor(u, k)];
      const pu = pts[u]!;
      const ds = cands.map((c) => poincareDistance(pu, pts[c]!));
      const m = Math.min(...ds);
      const ex = ds.map((d) => Math.exp(-(d - m)));
      let z = 0;
      for (const x of ex) z = z + x;
      const gu = new Array<number>(dim).fill(0);
      for (let i = 0; i < cands.length; i++) {
        const c = cands[i]!;
        const w = (i === 0 ? 1 : 0) - ex[i]! / z; // ∂L/∂d_i
        const pc = pts[c]!;
        const toward = distanceGradient(pu, pc);
        for (let j = 0; j < dim; j++) gu[j]! += w * toward[j]!;
        const away = distanceGradient(pc, pu);
        for (let j = 0; j < dim; j++) away[j] = w * away[j]!;
        pts[c] = rsgdStep(pc, away, lr, 0, PHASE1_MAX_NORM);
      }
      pts[u] = rsgdStep(pu, gu, lr, 0, PHASE1_MAX_NORM);
    }
    await opts.onEpoch?.(epoch + 1, pEpochs + cEpochs);
  }

  // Phase 2: entailment cones, from the Poincaré solution moved out to the annulus ψ is defined on.
  for (let i = 0; i < N; i++) pts[i] = project(pts[i]!, CONE_MIN_NORM);
  const POSITIVE_MARGIN = 0.02;
  const NEGATIVE_MARGIN = 0.1;
  const h = 1e-5;
  const plus = new Array<number>(dim);
  const minus = new Array<number>(dim);
  const numericGradient = (f: (p: Point) => number, p: Point): Point => {
    const out = new Array<number>(dim);
    for (let i = 0; i < dim; i++) {
      for (let j = 0; j < dim; j++) plus[j] = minus[j] = p[j]!;
      plus[i]! += h;
      minus[i]! -= h;
      out[i] = (f(plus) - f(minus)) / (2 * h);
    }
    return out;
  };
  const violations = () => {
    let n = 0;
    for (const [c, a] of pairs) if (coneEnergy(pts[a]!, pts[c]!) > 0) n++;
    return n;
  };
  // Past the planned epochs, continue (up to three times as many) while a pair is not yet entailed.
  for (let epoch = 0; epoch < cEpochs || (epoch < 3 * cEpochs && violations() > 0); epoch++) {
    const lr = CONE_LR;
    for (const [child, ancestor] of sample()) {
      const c = pts[child]!;
      const a = pts[ancestor]!;
      if (coneAngle(a, c) - coneAperture(a) + POSITIVE_MARGIN > 0) {
        const pos = (x: Point, y: Point) => coneAngle(x, y) - coneAperture(x);
        pts[ancestor] = rsgdStep(
          a,
          numericGradient((x) => pos(x, c), a),
          lr,
          CONE_MIN_NORM,
        );
        pts[child] = rsgdStep(
          c,
          numericGradient((y) => pos(a, y), c),
          lr,
          CONE_MIN_NORM,
        );
      }
      for (const neg of negativesFor(child, Math.min(k, 5))) {
        const x = pts[neg]!;
        const y = pts[child]!;
        if (coneEnergy(x, y) >= NEGATIVE_MARGIN) continue;
        const loss = (p: Point, q: Point) => NEGATIVE_MARGIN - coneEnergy(p, q);
        pts[neg] = rsgdStep(
          x,
          numericGradient((p) => loss(p, y), x),
          lr,
          CONE_MIN_NORM,
        );
        pts[child] = rsgdStep(
          y,
          numericGradient((q) => loss(x, q), y),
          lr,
          CONE_MIN_NORM,
        );
      }
    }
    await opts.onEpoch?.(pEpochs + Math.min(epoch + 1, cEpochs), pEpochs + cEpochs);
  }
  return new Map(nodes.map((n, i) => [n, pts[i]!]));
}

/** What a fit on another thread takes and gives back (plain arrays: structured clone). */
export interface ConeFitInput {
  pairs: ReadonlyArray<readonly [string, string]>;
  dim: number;
  seed: number;
  init: ReadonlyArray<readonly [string, Point]>;
}
export interface ConeFitOutput {
  points: Array<[string, Point]>;
  /** (descendant, ancestor) pairs of the hierarchy, and how many of them the fit leaves outside a cone. */
  closurePairs: number;
  unentailedPairs: number;
}

/** A whole fit and its check against the closure: what the `hyperbolic-fit` job runs off the event loop. */
export async function fitAndCheck(input: ConeFitInput, onEpoch?: FitOptions['onEpoch']): Promise<ConeFitOutput> {
  const points = await fitEntailmentCones(input.pairs, { dim: input.dim, seed: input.seed, init: new Map(input.init), ...(onEpoch ? { onEpoch } : {}) });
  const closure = transitiveClosure(input.pairs);
  const unentailedPairs = closure.filter(([c, a]) => coneEnergy(points.get(a)!, points.get(c)!) > 0).length;
  return { points: [...points], closurePairs: closure.length, unentailedPairs };
}
