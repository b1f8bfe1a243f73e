/**
 * Token-aware chunking for `push`. Tokens are approximated by whitespace-separated words and
 * punctuation runs (what BERT-style tokenizers split on first), which keeps chunk sizes within a
 * few percent of a model's count without loading a tokenizer on the request path.
 */
export interface Chunk {
  index: number;
  text: string;
  tokens: number;
}

const TOKEN = /[\p{L}\p{N}_'’-]+|[^\s\p{L}\p{N}]/gu;

export function countTokens(text: string): number {
  return text.match(TOKEN)?.length ?? 0;
}

/** Sentences (keeping their trailing space), falling back to lines for text without punctuation. */
function sentences(text: string): string[] {
  const parts = text.match(/[^.!?\n]+(?:[.!?]+["')\]]*|\n+|$)\s*/g) ?? [];
  return parts.filter((p) => p.trim().length > 0);
}

/** Splits a sentence longer than the budget at word boundaries. */
function splitLong(sentence: string, maxTokens: number): string[] {
  const words = sentence.split(/(?<=\s)/);
  const out: string[] = [];
  let current = '';
  let tokens = 0;
  for (const w of words) {
    const t = countTokens(w);
    if (tokens + t > maxTokens && current.trim()) {
      out.push(current);
      current = '';
      tokens = 0;
    }
    current += w;
    tokens += t;
  }
  if (current.trim()) out.push(current);
  return out;
}

/**
 * Packs whole sentences into chunks of at most `maxTokens` (a sentence longer than that is
 * split on words). Deterministic: the same text and size always give the same chunks, which is
 * what makes re-pushing a document idempotent.
 */
export function chunkText(text: string, maxTokens: number): Chunk[] {
  const chunks: Chunk[] = [];
  let current = '';
  let tokens = 0;
  const flush = () => {
    const trimmed = current.trim();
    if (trimmed) chunks.push({ index: chunks.length, text: trimmed, tokens: countTokens(trimmed) });
    current = '';
    tokens = 0;
  };
  for (const sentence of sentences(text)) {
    const t = countTokens(sentence);
    if (t > maxTokens) {
      flush();
      for (const piece of splitLong(sentence, maxTokens)) {
        current = piece;
        flush();
      }
      continue;
    }
    if (tokens + t > maxTokens) flush();
    current += sentence;
    tokens += t;
  }
  flush();
  return chunks;
}
