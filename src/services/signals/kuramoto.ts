import type { LoggedHit } from '../../store/retrieval-log-repo.js';

/**
 * Kuramoto synchronisation of the embedding spaces (contextgraph.md §5), driven by data instead
 * of the wall clock. Phases live in the rotating frame of the fused ranking, which is the
 * pacemaker at phase 0: per logged retrieval a space's detuning is its disagreement with the
 * fused ranking, the pacemaker pulls every space back with strength K, and the spaces pull on
 * one another with K/N (forced Kuramoto):
 *
 *   dφ_i/dt = DETUNING·(1 − a_i) − K·sin φ_i + (K/N)·Σ_j sin(φ_j − φ_i)
 *
 * A space that agrees (a_i ≈ 1) stays locked near 0; one whose disagreement exceeds what K can
 * hold (DETUNING·(1 − a_i) > K) drifts around the circle, its phase coherence (mean cos φ over
 * recent steps) falls, and it is down-weighted in fusion until its agreement returns, the pull
 * locks it again and the coherence recovers. A pacemaker is what makes the picture asymmetric: with
 * two fused spaces (the default E1 + lexical) plain mutual coupling would always put both at
 * the same distance from their mean phase.
 */
export const KURAMOTO = {
  /** Phase velocity (rad per retrieval) of a space that shares nothing with the fused ranking. */
  detuning: 1,
  defaultCoupling: 0.6,
  minCoupling: 0,
  maxCoupling: 10,
  /** Euler sub-steps per retrieval: K·dt stays ≤ 1 at the largest K and gain. */
  substeps: 20,
  /** A space whose recent mean cos φ is at least this (phases within ±60°) counts as in sync. */
  inSyncCoherence: 0.5,
  /** Weight of the newest step in a space's phase coherence (EWMA of e^{iφ}). */
  coherenceAlpha: 0.1,
  /** The smallest weight factor: a drifting space keeps being searched, so it can resynchronise. */
  minFactor: 0.1,
  /** Fused hits (and a signal's own list) compared per retrieval. */
  depth: 10,
  /** Retrievals one sync step reads at most (the newest ones when more are pending). */
  window: 2_000,
} as const;

/**
 * How much a signal agreed with the fused ranking of one retrieval, in [0, 1]: the share of the
 * fused top hits (weighted 1/position, so the first counts most) that the signal ranked in its
 * own top `depth`. Null when the signal was not asked or nothing was returned.
 */
export function agreementOf(hits: readonly LoggedHit[], signalTop: Readonly<Record<string, readonly number[]>>, signal: string): number | null {
  const own = signalTop[signal];
  if (!own || hits.length === 0) return null;
  const mine = new Set(own.slice(0, KURAMOTO.depth));
  let got = 0;
  let total = 0;
  for (const [i, h] of hits.slice(0, KURAMOTO.depth).entries()) {
    const w = 1 / (i + 1);
    total += w;
    if (mine.has(h.nid)) got += w;
  }
  return total > 0 ? got / total : null;
}

/** Wraps an angle to (−π, π]. */
export function wrap(phi: number): number {
  const t = (phi + Math.PI) % (2 * Math.PI);
  return (t <= 0 ? t + 2 * Math.PI : t) - Math.PI;
}

/**
 * Advances the phases of the spaces that took part in one retrieval by `dt` (the dopamine gain:
 * 1 at baseline). `phases` holds every space that has a phase; only those in `agreements` move,
 * and they feel the pull of all of them.
 */
export function stepPhases(phases: Map<string, number>, agreements: ReadonlyMap<string, number>, coupling: number, dt: number): void {
  // A space's first retrieval gives it a phase even when the gain is 0 (dopamine at its floor).
  for (const name of agreements.keys()) if (!phases.has(name)) phases.set(name, 0);
  if (agreements.size === 0 || dt <= 0) return;
  const n = phases.size;
  const h = dt / KURAMOTO.substeps;
  for (let s = 0; s < KURAMOTO.substeps; s++) {
    const now = new Map(phases);
    for (const [name, a] of agreements) {
      const phi = now.get(name)!;
      let mutual = 0;
      for (const other of now.values()) mutual += Math.sin(other - phi);
      const velocity = KURAMOTO.detuning * (1 - a) - coupling * Math.sin(phi) + (coupling / n) * mutual;
      phases.set(name, wrap(phi + h * velocity));
    }
  }
}

/** r·e^{iψ} = (1/N)·Σ e^{iφ_j}; null for no phases. */
export function orderParameter(phases: Iterable<number>): { r: number; psi: number } | null {
  let re = 0;
  let im = 0;
  let n = 0;
  for (const phi of phases) {
    re += Math.cos(phi);
    im += Math.sin(phi);
    n++;
  }
  if (n === 0) return null;
  return { r: Math.hypot(re, im) / n, psi: Math.atan2(im, re) };
}

/**
 * A space's phase coherence with the fused ranking: the recency-weighted mean of e^{iφ} over its
 * steps (EWMA). A space locked near the pacemaker keeps it near (1, 0); one that drifts sweeps the
 * circle and its mean shrinks towards 0, however its instantaneous phase happens to lie.
 */
export function nextCoherence(coherence: readonly [number, number], phi: number): [number, number] {
  const a = KURAMOTO.coherenceAlpha;
  return [coherence[0] + a * (Math.cos(phi) - coherence[0]), coherence[1] + a * (Math.sin(phi) - coherence[1])];
}

/** Fusion weight factor: the coherence's real part (mean cos φ), at least minFactor. */
export function syncFactor(coherence: readonly [number, number]): number {
  return Math.max(KURAMOTO.minFactor, Math.min(1, coherence[0]));
}

export function inSync(coherence: readonly [number, number]): boolean {
  return coherence[0] >= KURAMOTO.inSyncCoherence;
}

/**
 * The fusion weights search uses: each base weight × its sync factor^spread. `spread` comes from
 * serotonin (1 at baseline; 0 trusts every space as configured, 2 punishes drift twice as hard).
 * Spaces with no phase keep their base weight.
 */
export function syncedWeights(base: Readonly<Record<string, number>>, factors: Readonly<Record<string, number>>, spread: number): Record<string, number> {
  return Object.fromEntries(Object.entries(base).map(([name, w]) => [name, factors[name] === undefined ? w : w * Math.pow(factors[name], spread)]));
}
