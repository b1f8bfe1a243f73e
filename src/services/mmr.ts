/**
 * Maximal marginal relevance (Carbonell & Goldstein): picks hits one at a time by
 * λ·relevance − (1 − λ)·(highest similarity to a hit already picked), so a near duplicate of a
 * better hit gives way to a different memory. λ = 1 is the relevance order itself. Similarity is
 * the Jaccard overlap of the hits' word sets: the content is already read, so it costs no I/O.
 */
export function mmrOrder<T extends { score: number }>(hits: readonly T[], textOf: (hit: T) => string, lambda: number, limit: number): T[] {
  if (lambda >= 1 || hits.length <= 1) return hits.slice(0, limit);
  const top = hits.reduce((m, h) => Math.max(m, h.score), 0) || 1;
  const words = hits.map((h) => wordSet(textOf(h)));
  const left = hits.map((_, i) => i);
  const picked: number[] = [];
  const closest = hits.map(() => 0);
  while (picked.length < limit && left.length > 0) {
    let best = 0;
    let bestValue = -Infinity;
    for (const [j, i] of left.entries()) {
      const value = lambda * (hits[i]!.score / top) - (1 - lambda) * closest[i]!;
      if (value > bestValue) {
        best = j;
        bestValue = value;
      }
    }
    const [chosen] = left.splice(best, 1);
    picked.push(chosen!);
    for (const i of left) closest[i] = Math.max(closest[i]!, jaccard(words[i]!, words[chosen!]!));
  }
  return picked.map((i) => hits[i]!);
}

export function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? []);
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}
