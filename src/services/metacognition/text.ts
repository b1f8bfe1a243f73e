import { keywordTerms } from '../../embed/keyword.js';

/**
 * What the meta-cognitive checks read in a memory's text: its content words (stemmed, stop words
 * out), the numbers and dates it states, and whether it negates. Pure and deterministic.
 */

const NEGATIONS =
  /\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without|no longer|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|won't|wouldn't|can't|couldn't|shouldn't|hasn't|haven't|hadn't)\b|n't\b/gi;
const NEGATED = new RegExp(NEGATIONS.source, 'i');
const NEGATION_WORDS = new Set(['not', 'no', 'never', 'none', 'nobody', 'nothing', 'neither', 'nor', 'cannot', 'without', 'longer', 't']);
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/g;
const MONTH_DATE =
  /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*(?:\s+\d{4})?\b/gi;
const WEEKDAY = /\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b/gi;
const NUMBER = /(?<![\w.])\d+(?:[.,:]\d+)*(?![\w])/g;

export interface TextFacts {
  /** Stemmed content words without numbers or negations: what the text is about. */
  words: Set<string>;
  numbers: string[];
  dates: string[];
  negated: boolean;
}

export function textFacts(text: string): TextFacts {
  const lower = text.toLowerCase();
  const dates = [...(lower.match(ISO_DATE) ?? []), ...(lower.match(MONTH_DATE) ?? []), ...(lower.match(WEEKDAY) ?? [])].map((d) => d.replace(/s$/, '').replace(/\s+/g, ' '));
  // Numbers inside dates are the dates' business.
  const withoutDates = lower.replace(ISO_DATE, ' ').replace(MONTH_DATE, ' ');
  const numbers = (withoutDates.match(NUMBER) ?? []).map((n) => n.replace(/,(?=\d{3}\b)/g, ''));
  const words = new Set(keywordTerms(lower.replace(NEGATIONS, ' ')).filter((w) => !/^\d/.test(w) && !NEGATION_WORDS.has(w)));
  for (const d of dates) for (const w of keywordTerms(d)) words.delete(w);
  return { words, numbers: [...new Set(numbers)].sort(), dates: [...new Set(dates)].sort(), negated: NEGATED.test(lower) };
}

/** |A ∩ B| / |A ∪ B|; two empty sets share nothing. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export type Disagreement = { kind: 'negation' | 'numbers' | 'dates'; detail: string };

/**
 * How two statements about the same thing disagree: one negates what the other states, or they
 * give different numbers or dates for it. `overlap` is the Jaccard of their content words: below
 * `minOverlap` they say different things, which is not a contradiction.
 */
export function disagreement(a: TextFacts, b: TextFacts, minOverlap: number): { overlap: number; found: Disagreement[] } {
  const overlap = jaccard(a.words, b.words);
  if (overlap < minOverlap) return { overlap, found: [] };
  const found: Disagreement[] = [];
  if (a.negated !== b.negated) found.push({ kind: 'negation', detail: 'one of them negates what the other states' });
  if (a.numbers.length && b.numbers.length && !sameList(a.numbers, b.numbers))
    found.push({ kind: 'numbers', detail: `numbers ${a.numbers.join(', ')} vs ${b.numbers.join(', ')}` });
  if (a.dates.length && b.dates.length && !sameList(a.dates, b.dates)) found.push({ kind: 'dates', detail: `dates ${a.dates.join(', ')} vs ${b.dates.join(', ')}` });
  return { overlap, found };
}

/** Cosine of two unit vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) dot += a[i]! * b[i]!;
  return dot;
}

/** The first `max` characters of a memory on one line, for questions and findings. */
export function excerpt(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}
