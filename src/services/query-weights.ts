import { keywordTerms, termId } from '../embed/keyword.js';
import { LEXICAL_SPACE } from '../embed/spaces/registry.js';
import { wordTokens } from '../embed/word-tokenizer.js';
import { BM25_B, BM25_K1 } from '../index/sparse.js';
import type { VectorIndexes } from '../index/vector-index.js';

export interface QueryTermStats {
  /**
   * Multiplier per query word for the static E1 query vector: the IDF of the word's keyword term
   * in the E13 index (its live statistics), 0 for a stop word. On LoCoMo (bench --parts locomo)
   * SIF × IDF on the query side lifted the fused R@10 from 63.7 to 65.9; documents keep
   * corpus-free SIF weights, so stored vectors never depend on the corpus.
   */
  wordWeights: Record<string, number>;
  /**
   * The BM25 score of a document that holds each of the query's distinct keyword terms once and
   * is as short as can be: Σ idf · (k1 + 1) / (1 + k1·(1 − b)). The yardstick for how much of
   * the query a lexical hit matches (one of three equally rare words scores about a third).
   */
  lexicalScale: number;
}

/** One round trip to the index thread for every term of the query. */
export async function queryTermStats(indexes: VectorIndexes, text: string): Promise<QueryTermStats> {
  const words = [...new Set(wordTokens(text))];
  // keywordTerms stems and drops stop words exactly as the E13 encoder does.
  const termOfWord = new Map(words.map((w) => [w, keywordTerms(w)[0]]));
  const terms = [...new Set([...keywordTerms(text), ...termOfWord.values()].filter((t): t is string => t !== undefined))];
  const idfs = await indexes.termIdf(
    LEXICAL_SPACE,
    terms.map((t) => termId(t)),
  );
  const idfOf = new Map(terms.map((t, i) => [t, idfs[i] ?? 0]));
  const wordWeights: Record<string, number> = Object.fromEntries(words.map((w) => [w, idfOf.get(termOfWord.get(w) ?? '') ?? 0]));
  return { wordWeights, lexicalScale: bm25Scale([...new Set(keywordTerms(text))].map((t) => idfOf.get(t) ?? 0)) };
}

/**
 * The BM25 score of the shortest document holding each of a query's distinct terms once, from
 * those terms' IDFs: Σ idf · (k1 + 1) / (1 + k1·(1 − b)). What a sparse signal's raw score is
 * measured against (fusion.ts matchStrength).
 */
export function bm25Scale(idfs: readonly number[]): number {
  return (idfs.reduce((sum, x) => sum + x, 0) * (BM25_K1 + 1)) / (1 + BM25_K1 * (1 - BM25_B));
}
