import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WordVocabulary, wordTokens } from '../../src/embed/word-tokenizer.js';

test('wordTokens: lowercase, NFKC, runs of letters and digits', () => {
  assert.deepEqual(wordTokens('Hello, World! It costs 42 EUR.'), ['hello', 'world', 'it', 'costs', '42', 'eur']);
  assert.deepEqual(wordTokens('ＦＵＬＬ width'), ['full', 'width']);
  // Diacritics are folded: the GloVe vocabulary is ASCII only.
  assert.deepEqual(wordTokens('Café naïve Zürich façade'), ['cafe', 'naive', 'zurich', 'facade']);
  assert.deepEqual(wordTokens('Cafe\u0301'), ['cafe']);
  // Scripts without a Latin base letter still split into words (GloVe just does not know them).
  assert.deepEqual(wordTokens('日本 русский'), ['日本', 'русскии']);
  assert.deepEqual(wordTokens('e-mail re:search foo_bar'), ['e', 'mail', 're', 'search', 'foo', 'bar']);
  assert.deepEqual(wordTokens(''), []);
  assert.deepEqual(wordTokens('... !!! ???'), []);
});

test('wordTokens: contractions expand, possessive s is dropped', () => {
  assert.deepEqual(wordTokens("I don't know"), ['i', 'do', 'not', 'know']);
  assert.deepEqual(wordTokens("They're sure you've seen what we'll do"), ['they', 'are', 'sure', 'you', 'have', 'seen', 'what', 'we', 'will', 'do']);
  assert.deepEqual(wordTokens("I'm sure she'd go"), ['i', 'am', 'sure', 'she', 'would', 'go']);
  assert.deepEqual(wordTokens("John's car isn't here"), ['john', 'car', 'is', 'not', 'here']);
  // Irregular negations keep their verb.
  assert.deepEqual(wordTokens("won't can't shan't ain't"), ['will', 'not', 'can', 'not', 'shall', 'not', 'is', 'not']);
  // Typographic apostrophes (phones and word processors) behave like the ASCII one.
  assert.deepEqual(wordTokens('Don\u2019t, it\u2019s Mary\u2019s'), ['do', 'not', 'it', 'mary']);
  assert.deepEqual(wordTokens("WON'T"), ['will', 'not']);
  assert.deepEqual(wordTokens('don`t'), ['do', 'not']);
  // Only at the end of a word: "'sa" or "n'tx" are not contractions, and quotes split words.
  assert.deepEqual(wordTokens("rock 'n' roll 'sample' o'clock"), ['rock', 'n', 'roll', 'sample', 'o', 'clock']);
});

test('WordVocabulary: ids of known words in order, unknown words dropped, maxTokens caps', () => {
  const vocab = new WordVocabulary(['the', 'cat', 'sat', 'not', 'do']);
  assert.equal(vocab.size, 5);
  assert.deepEqual(vocab.ids('The cat sat on the mat'), [0, 1, 2, 0]);
  assert.deepEqual(vocab.ids("don't"), [4, 3]);
  assert.deepEqual(vocab.ids('unknown words only'), []);
  assert.deepEqual(vocab.ids('the cat sat the cat', 2), [0, 1]);
  assert.throws(() => new WordVocabulary(['a', 'a']), /duplicate/);
});
