/**
 * Plain BM25 baseline: wink-bm25-text-search (a dev dependency) in this process, with the usual
 * preparation (lower case, word tokens, English stop words removed, Porter2 stems).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface WinkBm25 {
  defineConfig(config: { fldWeights: Record<string, number>; bm25Params?: { k1?: number; b?: number; k?: number } }): void;
  definePrepTasks(tasks: Array<(x: unknown) => unknown>): void;
  addDoc(doc: Record<string, string>, id: string): void;
  consolidate(fp?: number): void;
  search(text: string, limit?: number): Array<[string, number]>;
}

const STOP = new Set(
  'a an and are as at be been but by can could did do does for from had has have how i if in into is it its me my no not of on or our so than that the their them then there these they this to was we were what when where which who whom why will with would you your'.split(
    ' ',
  ),
);

function stemmer(): (w: string) => string {
  try {
    const utils = require('wink-nlp-utils') as { string: { stem(w: string): string } };
    return (w) => utils.string.stem(w);
  } catch {
    return (w) => w;
  }
}

export interface Bm25Index {
  search(text: string, limit: number): string[];
  readonly stemmed: boolean;
}

export function buildBm25(docs: ReadonlyArray<{ key: string; topic: string; content: string }>): Bm25Index {
  const factory = require('wink-bm25-text-search') as () => WinkBm25;
  const engine = factory();
  const stem = stemmer();
  const prep = (text: unknown): string[] =>
    String(text)
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 0 && !STOP.has(w))
      .map(stem);
  engine.defineConfig({ fldWeights: { topic: 1, content: 1 }, bm25Params: { k1: 1.2, b: 0.75 } });
  engine.definePrepTasks([prep as (x: unknown) => unknown]);
  for (const d of docs) engine.addDoc({ topic: d.topic, content: d.content }, d.key);
  engine.consolidate();
  return {
    stemmed: stem('retries') !== 'retries',
    search: (text, limit) => engine.search(text, limit).map(([id]) => id),
  };
}
