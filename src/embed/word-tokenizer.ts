import { readFile } from 'node:fs/promises';

/**
 * The word-level tokenizer of the static (GloVe) E1 model. GloVe's vocabulary is lowercase whole
 * words, so a subword tokenizer is of no use; @huggingface/tokenizers could hold the vocabulary
 * but not the contraction rules below, so this small tokenizer reads a plain vocab.txt (one word
 * a line, line number = row of the model's table).
 *
 * Rules (the recipe measured in the research note, §3.1):
 *   NFKC, lowercase, diacritics removed, typographic apostrophes → ', expand n't / 're / 'm /
 *   'll / 've / 'd, drop possessive 's, split on runs of letters and digits, drop words not in
 *   the vocabulary.
 * Diacritics go because the packaged GloVe vocabulary is pure ASCII ("cafe", "naive", no "café"):
 * folding turns an unknown accented word into its known plain spelling.
 * "'s" is dropped rather than expanded: it is as often a possessive as "is", and "is" is near
 * the common component anyway.
 */

const APOSTROPHES = /[\u2018\u2019\u02bc\u2032\uff07`]/g;
// A contraction suffix ends a word: not followed by another letter or digit.
const END = '(?![\\p{L}\\p{N}])';
const CONTRACTIONS: ReadonlyArray<[RegExp, string]> = [
  // Irregular negations first: "won't" is "will not", not "wo not".
  [new RegExp(`\\bwon't${END}`, 'gu'), 'will not'],
  [new RegExp(`\\bcan't${END}`, 'gu'), 'can not'],
  [new RegExp(`\\bshan't${END}`, 'gu'), 'shall not'],
  [new RegExp(`\\bain't${END}`, 'gu'), 'is not'],
  [new RegExp(`n't${END}`, 'gu'), ' not'],
  [new RegExp(`'re${END}`, 'gu'), ' are'],
  [new RegExp(`'m${END}`, 'gu'), ' am'],
  [new RegExp(`'ll${END}`, 'gu'), ' will'],
  [new RegExp(`'ve${END}`, 'gu'), ' have'],
  [new RegExp(`'d${END}`, 'gu'), ' would'],
  [new RegExp(`'s${END}`, 'gu'), ''],
];
const WORD = /[\p{L}\p{N}]+/gu;
const NON_ASCII = /[^\u0020-\u007e\t\n\r]/;
const COMBINING_MARKS = /\p{M}+/gu;

/** The words of `text` after normalisation and contraction expansion, known or not. */
export function wordTokens(text: string): string[] {
  return [...words(text)];
}

function* words(text: string): Generator<string> {
  let s = text.normalize('NFKC').toLowerCase().replace(APOSTROPHES, "'");
  // Fast path: ASCII text has nothing to fold.
  if (NON_ASCII.test(s)) s = s.normalize('NFD').replace(COMBINING_MARKS, '').normalize('NFC');
  // Cheap guard: most texts have no apostrophe and skip all eleven regexes.
  if (s.includes("'")) for (const [pattern, replacement] of CONTRACTIONS) s = s.replace(pattern, replacement);
  for (const m of s.matchAll(WORD)) yield m[0];
}

export class WordVocabulary {
  private readonly index: Map<string, number>;

  constructor(readonly words: readonly string[]) {
    this.index = new Map(words.map((w, i) => [w, i]));
    if (this.index.size !== words.length) throw new Error('vocabulary has duplicate words');
  }

  static async load(path: string): Promise<WordVocabulary> {
    const text = await readFile(path, 'utf8');
    const words = text.split('\n');
    if (words[words.length - 1] === '') words.pop();
    return new WordVocabulary(words);
  }

  get size(): number {
    return this.words.length;
  }

  idOf(word: string): number | undefined {
    return this.index.get(word);
  }

  /** Row ids of the known words of `text`, in order; unknown words are dropped, at most maxTokens kept. */
  ids(text: string, maxTokens = Infinity): number[] {
    const ids: number[] = [];
    // Lazy: a huge text stops being scanned once maxTokens known words are found.
    for (const word of words(text)) {
      const id = this.index.get(word);
      if (id === undefined) continue;
      ids.push(id);
      if (ids.length >= maxTokens) break;
    }
    return ids;
  }
}
