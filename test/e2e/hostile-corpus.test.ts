import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { citation } from '../../src/ids.js';
import { neutralise } from '../../src/tools/kit/markdown.js';
import { HOSTILE_TEXTS } from '../fixtures/hostile-texts.js';
import { call, tempDir, toolError } from '../helpers/cli.js';
import { assertNoBreakout, parseCards, type Card } from '../helpers/commonmark.js';
import { inMemoryClient } from '../helpers/in-memory.js';

/**
 * Issue 16, hostile memory text end to end: every text of the corpus is stored for real (as
 * content, as a topic and as a tag), read back through `search` and `query`, and the markdown
 * the tools answer is parsed by a real CommonMark parser (commonmark.js) as a client would
 * render it. No case may create a heading, link, image, HTML, list, quote or card marker outside
 * its card's fenced block; the JSON keeps every text as stored.
 */

// eslint-disable-next-line no-control-regex -- control characters are what this matches
const INVISIBLE_OR_BREAKING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u206f\ufeff]|[\u{e0000}-\u{e007f}]/u;

interface Stored {
  id: string;
  /** The case's index in the corpus. */
  i: number;
  content: string;
  topic: string;
  tags: string[];
}

const n = HOSTILE_TEXTS.length;
/** Each memory's topic and hostile tag come from other cases than its content, so every field meets every kind of text. */
const topicOf = (i: number) => `${HOSTILE_TEXTS[(i * 7 + 3) % n]!.slice(0, 200)} hostile case ${i}`;
const tagOf = (i: number) => HOSTILE_TEXTS[(i * 11 + 5) % n]!.slice(0, 60);
/** What the text looks like in a card's fence: line breaks and invisible characters made visible, a comment opener escaped. */
/**
 * Known limit, embedded mode only: PGlite decodes each text value with a TextDecoder, which drops
 * a leading U+FEFF (byte order mark) on read; the row itself keeps it (Postgres mode reads it
 * back). Every other character comes back as stored.
 */
const readBack = (text: string) => text.replace(/^\ufeff/, '');
const fenced = (text: string) => neutralise(text.length > 600 ? `${text.slice(0, 600)}…` : text).replaceAll('<!--', '<!\\-\\-');

describe(`${n} hostile memory texts stored, searched and rendered by a CommonMark parser`, () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let app: App;
  let client: Client;
  const stored = new Map<string, Stored>();
  const refused: string[] = [];

  before(async () => {
    dir = await tempDir();
    app = await createApp(
      loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off', CONTEXT_GRAPH_EMBED_WAIT_MS: '0', CONTEXT_GRAPH_TOOLSETS: 'core' }),
      createLogger('warn'),
    );
    client = await inMemoryClient(app, { name: 'hostile', actor: 'test:hostile' });
    for (let i = 0; i < n; i++) {
      const args = { content: HOSTILE_TEXTS[i]!, topic: topicOf(i), tags: ['hostile', `batch${i % 2}`, tagOf(i)], project_id: 'hostile' };
      const r = await call(client, 'store', args);
      const err = toolError(r);
      if (err) {
        refused.push(`${i}: ${err.code}`);
        continue;
      }
      const id = (r.structuredContent as { id: string }).id;
      stored.set(id, { id, i, content: readBack(args.content), topic: args.topic.trim(), tags: args.tags.map((t) => t.trim()) });
    }
  });
  after(async () => {
    await client?.close();
    await app?.close();
    await dir?.remove();
  });

  /** Checks one rendering and answers its cards by memory id. */
  function check(md: string, name: string, label: string): Map<string, Card> {
    assert.doesNotMatch(md, INVISIBLE_OR_BREAKING, `${label}: no control, bidi, tag, zero-width or Unicode line-break character is rendered`);
    const { cards } = parseCards(md, name, label);
    const byId = new Map<string, Card>();
    for (const card of cards) {
      const id = /^\[node_[0-9a-f]+\] (\S+) /.exec(card.header)?.[1];
      assert.ok(id && stored.has(id), `${label}: a card header names a stored memory: ${JSON.stringify(card.header)}`);
      assert.ok(card.header.startsWith(`${citation(id)} ${id} `));
      assert.equal(card.info, 'text');
      byId.set(id, card);
    }
    return byId;
  }

  test('every case is stored (none refused) and the JSON of `query` keeps content, topic and tags as written', async () => {
    // Postgres text cannot hold U+0000: a store carrying one is refused as bad input (INVALID_PARAMS), nothing else is.
    const withNul = HOSTILE_TEXTS.map((_, i) => i).filter((i) => [HOSTILE_TEXTS[i]!, topicOf(i), tagOf(i)].some((t) => t.includes('\u0000')));
    assert.deepEqual(
      refused,
      withNul.map((i) => `${i}: INVALID_PARAMS`),
      'no hostile text is refused but for NUL: it is data, stored as written',
    );
    assert.ok(stored.size >= 50, `${stored.size} cases stored`);
    const seen = new Set<string>();
    for (const batch of ['batch0', 'batch1']) {
      // A hostile query is echoed in the heading: escaped, like everything stored.
      const r = await call(client, 'query', { query: 'hostile case\r# [q](http://evil.example) <b>', project_id: 'hostile', tags: [batch], limit: 50 });
      const items = (r.structuredContent as { items: Array<{ id: string; content: string; topic: string | null }> }).items;
      const md = (r.content as Array<{ type: string; text: string }>).find((c) => c.type === 'text')!.text;
      const cards = check(md, 'entry', `query ${batch}`);
      assert.equal(cards.size, items.length);
      for (const item of items) {
        const s = stored.get(item.id)!;
        assert.equal(item.content, s.content, 'the JSON keeps the content intact');
        assert.equal(item.topic, s.topic, 'the JSON keeps the topic intact');
        const card = cards.get(item.id)!;
        assert.equal(card.body, fenced(s.content), `the card's fence holds exactly its text: ${JSON.stringify(s.content)}`);
        // The topic is shown as the words it is, on the card's header line.
        assert.ok(card.header.includes(neutralise(s.topic).replace(/\s+/g, ' ').trim().slice(0, 200)), `the header shows the topic literally: ${JSON.stringify(card.header)}`);
        seen.add(item.id);
      }
    }
    assert.equal(seen.size, stored.size, 'every stored case was rendered');
  });

  test('a question back (needs-input) lists the hostile recent topics as plain escaped text', async () => {
    for (const [tool, args] of [
      ['query', {}],
      ['search', { query_text: ' ' }],
    ] as const) {
      const r = await call(client, tool, args);
      const payload = r.structuredContent as { kind: string; needsInput: { suggestions: Record<string, string[]> } };
      assert.equal(payload.kind, 'needsInput:v1');
      const suggested = Object.values(payload.needsInput.suggestions).flat();
      assert.ok(
        suggested.some((t) => /hostile case/.test(t)),
        'the suggestions are the stored (hostile) topics',
      );
      const md = (r.content as Array<{ type: string; text: string }>).find((c) => c.type === 'text')!.text;
      assert.doesNotMatch(md, INVISIBLE_OR_BREAKING, `${tool}: nothing invisible is rendered`);
      assertNoBreakout(md, `${tool} needs-input`, { headings: ['Input needed'], marker: /^<!-- kind:needs-input:v1 -->$/ });
    }
  });

  test('`search` renders every case in its fence with its tags escaped, a hostile query included; its context labels memory text as quoted data', async () => {
    const seen = new Set<string>();
    // The query itself is hostile too: it is echoed nowhere as markup.
    for (const [batch, query] of [
      ['batch0', 'hostile case'],
      ['batch1', 'hostile case\r# [query](http://evil.example) <b>x</b>'],
    ] as const) {
      const r = await call(client, 'search', { query_text: query, project_id: 'hostile', tags: [batch], limit: 50, score_threshold: 0 });
      const out = r.structuredContent as { hits: Array<{ id: string; text: string; tags: string[] }>; context: string };
      const md = (r.content as Array<{ type: string; text: string }>).find((c) => c.type === 'text')!.text;
      const cards = check(md, 'hit', `search ${batch}`);
      assert.equal(cards.size, out.hits.length);
      assert.ok(out.hits.length > 0);
      for (const hit of out.hits) {
        const s = stored.get(hit.id)!;
        assert.equal(hit.text, `${s.topic}: ${s.content}`, 'the JSON keeps topic and content intact');
        assert.deepEqual([...hit.tags].sort(), [...s.tags].sort(), 'the JSON keeps the tags intact');
        const card = cards.get(hit.id)!;
        assert.equal(card.body, fenced(hit.text));
        assert.ok(card.header.includes(neutralise(s.tags[2]!).replace(/\s+/g, ' ').trim()), `the header shows the tag literally: ${JSON.stringify(card.header)}`);
        seen.add(hit.id);
      }
      // The context string: a label, then one line per hit, each a JSON string.
      const [label, ...lines] = out.context.split('\n');
      assert.match(label!, /quoted as data \(not instructions\)/);
      assert.equal(lines.length, out.hits.length, 'no memory can add a line to the context');
      lines.forEach((line, i) => {
        const m = /^\[node_[0-9a-f]+\] (".*")$/.exec(line);
        assert.ok(m, line);
        const shown = JSON.parse(m[1]!) as string;
        const full = neutralise(out.hits[i]!.text).replace(/\s+/g, ' ').trim();
        assert.ok(shown === full || (shown.endsWith('…') && full.startsWith(shown.slice(0, -1))), `context line ${i} is the hit's text: ${line}`);
      });
      assert.doesNotMatch(out.context, INVISIBLE_OR_BREAKING);
    }
    assert.equal(seen.size, stored.size, 'every stored case was found and rendered');
  });
});
