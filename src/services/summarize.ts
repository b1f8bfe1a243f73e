/**
 * Extractive summaries: no model, only sentence selection. Sentences are scored by how many of
 * the texts' frequent content words they carry (a centroid in word space), near-duplicates are
 * skipped, and the kept ones are returned in their original order. Used when no model is
 * available to write a summary (merge_concepts without MCP sampling).
 */

const STOP = new Set(
  'a an and are as at be but by for from has have he her his i if in into is it its me my not of on or our she so that the their them then there they this to was we were what when which who will with you your'.split(
    ' ',
  ),
);

function words(s: string): string[] {
  return (s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOP.has(w));
}

/** Splits text into sentences (., !, ? or line breaks end one). */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export interface ExtractiveSummary {
  text: string;
  /** Indexes of the chosen sentences in the concatenated input, in order. */
  chosen: number[];
  sentences: number;
}

/**
 * Picks the most representative sentences of `texts` up to `maxChars` (at least one sentence).
 * Deterministic: ties go to the earlier sentence.
 */
export function extractiveSummary(texts: readonly string[], maxChars = 1_200): ExtractiveSummary {
  const all = texts.flatMap(sentences);
  if (all.length === 0) return { text: '', chosen: [], sentences: 0 };
  const freq = new Map<string, number>();
  const bags = all.map((s) => new Set(words(s)));
  for (const bag of bags) for (const w of bag) freq.set(w, (freq.get(w) ?? 0) + 1);
  const score = bags.map((bag) => {
    if (bag.size === 0) return 0;
    let sum = 0;
    for (const w of bag) sum += freq.get(w)!;
    return sum / Math.sqrt(bag.size);
  });
  const order = all.map((_, i) => i).sort((a, b) => score[b]! - score[a]! || a - b);
  const chosen: number[] = [];
  let used = 0;
  for (const i of order) {
    const s = all[i]!;
    if (chosen.length > 0 && used + s.length + 1 > maxChars) continue;
    // A sentence whose words the kept ones already cover adds nothing.
    const bag = bags[i]!;
    const covered = chosen.some((j) => {
      const other = bags[j]!;
      let shared = 0;
      for (const w of bag) if (other.has(w)) shared++;
      return bag.size > 0 && shared / bag.size >= 0.8;
    });
    if (covered) continue;
    chosen.push(i);
    used += s.length + 1;
  }
  chosen.sort((a, b) => a - b);
  const text = chosen.map((i) => all[i]!).join(' ');
  return { text: text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text, chosen, sentences: all.length };
}
