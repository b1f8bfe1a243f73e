import { citation } from '../../src/ids.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONTEXT_LABEL, buildContext, searchTool } from '../../src/tools/memory/search.js';
import { queryTool } from '../../src/tools/memory/query.js';
import { inlineText, neutralise } from '../../src/tools/kit/markdown.js';
import { HOSTILE_TEXTS } from '../fixtures/hostile-texts.js';
import { parseCards } from '../helpers/commonmark.js';

const HOSTILE = HOSTILE_TEXTS;

// eslint-disable-next-line no-control-regex -- control characters are what this matches
const INVISIBLE_OR_BREAKING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u206f\ufeff]|[\u{e0000}-\u{e007f}]/u;

const hit = (i: number, text: string) => ({
  id: `01HOSTILE${String(i).padStart(17, '0')}`,
  score: 0.5,
  text,
  project_id: 'default',
  memory_type: 'semantic' as const,
  tags: [text.slice(0, 60)],
  timestamp: '2026-11-23T00:00:00.000Z',
  source_uri: null,
  superseded_by: null,
});

test(`${HOSTILE.length} hostile memory texts: none creates an element outside its card, and the payload keeps them intact`, () => {
  assert.ok(HOSTILE.length >= 50);
  const hits = HOSTILE.map((text, i) => hit(i, text));
  const ids = hits.map((h) => h.id);
  const payload = {
    kind: 'search:v1' as const,
    hits,
    context: buildContext(hits),
    used_filters: {},
    limit: 50,
    score_threshold: 0,
    contract_markers: { index: 1, cards: hits.length, version: 'v1' },
  };
  const md = searchTool.render(payload as never);

  assert.doesNotMatch(md, INVISIBLE_OR_BREAKING, 'no control, bidi, tag, zero-width or Unicode line-break character is rendered');
  assert.equal(md.match(/<!--/g)?.length, hits.length + 1, 'exactly one index marker and one card marker per hit, even counted in the raw text');
  // Parsed as a client parses it: each hit is one card whose code block holds exactly its text.
  const { cards } = parseCards(md, 'hit', 'search');
  assert.equal(cards.length, hits.length);
  cards.forEach((card, i) => {
    const expected = neutralise(HOSTILE[i]!.length > 600 ? `${HOSTILE[i]!.slice(0, 600)}…` : HOSTILE[i]!).replaceAll('<!--', '<!\\-\\-');
    assert.equal(card.body, expected, `hit ${i}: the fence holds exactly its text`);
    assert.ok(card.header.startsWith(`${citation(ids[i]!)} ${ids[i]}`), card.header);
    // The tag is shown as the text it is (one line, neutralised), not as markup.
    assert.ok(card.header.includes(inlineText(HOSTILE[i]!.slice(0, 60)).replace(/\\(.)/g, '$1')), `hit ${i}: header shows the tag literally: ${card.header}`);
  });
  // Data stays data: the JSON payload is untouched.
  hits.forEach((h, i) => assert.equal(h.text, HOSTILE[i]));
});

test('topics of hostile text are escaped in query card headers', () => {
  const items = HOSTILE.map((text, i) => ({ ...hit(i, 'body'), topic: text.slice(0, 200) }));
  const md = queryTool.render({
    kind: 'entries:v1',
    query: null,
    as_of_tx_id: 1,
    items: items.map((it) => ({ id: it.id, topic: it.topic, content: 'body', project_id: 'default', memory_type: 'semantic', score: null, superseded_by: null })),
    used_filters: {},
    hint: null,
    next_cursor: null,
    contract_markers: { index: 1, cards: items.length, version: 'v1' },
  } as never);
  assert.doesNotMatch(md, INVISIBLE_OR_BREAKING);
  const { cards } = parseCards(md, 'entry', 'query');
  assert.equal(cards.length, items.length);
  cards.forEach((card, i) => assert.ok(card.header.includes(inlineText(items[i]!.topic).replace(/\\(.)/g, '$1')), `entry ${i}: header shows the topic literally: ${card.header}`));
});

test('the search context labels memory text as quoted data, one JSON string per hit', () => {
  const hits = HOSTILE.slice(0, 12).map((text, i) => hit(i, text));
  const context = buildContext(hits);
  const [label, ...rest] = context.split('\n');
  assert.equal(label, CONTEXT_LABEL);
  assert.equal(rest.length, hits.length, 'no memory can add a line (a forged hit or label)');
  rest.forEach((line, i) => {
    const m = /^\[(\w+)\] (".*")$/.exec(line);
    assert.ok(m, line);
    assert.equal(m[1], hits[i]!.id);
    assert.equal(JSON.parse(m[2]!), neutralise(HOSTILE[i]!).replace(/\s+/g, ' ').trim());
  });
  assert.doesNotMatch(context, INVISIBLE_OR_BREAKING);
});
