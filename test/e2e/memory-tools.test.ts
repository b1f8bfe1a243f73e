import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolPayloadSchema } from '../../src/mcp/contract.js';
import { citation } from '../../src/ids.js';
import { call, startServe, tempDir, toolError, useEmbeddedServer } from '../helpers/cli.js';

/** The canonical JSON block (seed 003): the last text block that parses and validates. */
function jsonBlock(result: CallToolResult): Record<string, unknown> {
  for (const block of [...result.content].reverse()) {
    if (block.type !== 'text') continue;
    try {
      return toolPayloadSchema.parse(JSON.parse(block.text)) as Record<string, unknown>;
    } catch {
      // not the JSON block
    }
  }
  throw new Error(`no valid JSON block in ${JSON.stringify(result.content).slice(0, 300)}`);
}

function markdown(result: CallToolResult): string {
  const block = result.content.find((b) => b.type === 'text');
  return block && block.type === 'text' ? block.text : '';
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('memory tools: formats, ergonomics, needsInput, search, push', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;

  useEmbeddedServer((f) => ({ dir, server, client } = f));

  test('format gating (seed 003): markdown → markdown + links; json → one JSON block; both → markdown, links, JSON last', async () => {
    const md = await call(client, 'store', { content: 'Format test: the kiln fires at 1200 degrees.', topic: 'pottery' });
    assert.deepEqual(
      md.content.map((b) => b.type),
      ['text', 'resource_link'],
    );
    const link = md.content[1] as { type: 'resource_link'; uri: string };
    assert.match(link.uri, /^knowledge:\/\/entries\//);
    assert.throws(() => JSON.parse(markdown(md)), 'markdown mode has no JSON text block');
    assert.ok(!JSON.stringify(md.content).includes('content_hash'), 'markdown mode carries no copy of the payload');

    const json = await call(client, 'query', { query: 'kiln temperature', format: 'json' });
    assert.deepEqual(
      json.content.map((b) => b.type),
      ['text'],
    );
    assert.deepEqual(jsonBlock(json), json.structuredContent);

    const both = await call(client, 'query', { query: 'kiln temperature', format: 'both' });
    const types = both.content.map((b) => b.type);
    assert.equal(types[0], 'text');
    assert.equal(types[types.length - 1], 'text');
    assert.ok(types.slice(1, -1).every((t) => t === 'resource_link'));
    const payload = jsonBlock(both) as { kind: string; items: unknown[]; contract_markers: { cards: number; index: number } };
    assert.equal(payload.kind, 'entries:v1');
    const text = markdown(both);
    assert.equal(count(text, '<!-- kind:entry-index:v1 -->'), payload.contract_markers.index);
    assert.equal(count(text, '<!-- kind:entry-card:v1 -->'), payload.contract_markers.cards);
    assert.equal(payload.contract_markers.cards, payload.items.length);
  });

  test('every resource link a tool hands out reads back exactly the items it names', async () => {
    for (const [tool, args] of [
      ['store', { content: 'Resource link test: the ferry leaves at noon.', project_id: 'links', topic: 'ferry' }],
      ['query', { query: 'ferry', project_id: 'links', topic: 'ferry' }],
      ['search', { query_text: 'ferry', project_id: 'links' }],
    ] as const) {
      const r = await call(client, tool, { ...args, format: 'both' });
      const links = r.content.filter((b) => b.type === 'resource_link') as Array<{ uri: string }>;
      const payload = jsonBlock(r) as { id?: string; items?: Array<{ id: string }>; hits?: Array<{ id: string }> };
      const expected = payload.id ? [payload.id] : (payload.items ?? payload.hits ?? []).map((i) => i.id);
      assert.ok(expected.length >= 1, tool);
      const read: string[] = [];
      for (const link of links) {
        const body = JSON.parse(((await client.readResource({ uri: link.uri })).contents[0] as { text: string }).text) as { items: Array<{ id: string }> };
        read.push(...body.items.map((i) => i.id));
      }
      assert.deepEqual(read, expected, `${tool}: the links read back the result's items`);
    }
  });

  test('aliases and coercions: text, type, project, a string tag, k, query_text', async () => {
    const r = await call(client, 'store', { text: 'Alias test: stand-ups move to Tuesdays.', type: 'episodic', project: 'team-a', tags: 'meetings' });
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    const s = r.structuredContent as { project_id: string; memory_type: string };
    assert.equal(s.project_id, 'team-a');
    assert.equal(s.memory_type, 'episodic');
    const found = await call(client, 'search', { query: 'when are stand-ups', k: 1, project: 'team-a', tags: 'meetings' });
    const hits = (found.structuredContent as { hits: Array<{ tags: string[]; project_id: string }>; limit: number }).hits;
    assert.equal((found.structuredContent as { limit: number }).limit, 1);
    assert.deepEqual(hits[0]?.tags, ['meetings']);
  });

  test('unknown keys are rejected with the allowed names', async () => {
    const err = toolError(await call(client, 'search', { query_text: 'x', colour: 'red' }));
    assert.equal(err?.code, 'INVALID_PARAMS');
    assert.ok(err!.message.includes('colour'));
    assert.ok(err!.message.includes('query_text') && err!.message.includes('score_threshold'), err!.message);
  });

  test('needsInput: empty query', async () => {
    const r = await call(client, 'query', { query: '   ', format: 'json' });
    assert.equal(r.isError, undefined);
    const p = jsonBlock(r) as { kind: string; needsInput: { fields: string[] } };
    assert.equal(p.kind, 'needsInput:v1');
    assert.deepEqual(p.needsInput.fields, ['query']);
    assert.ok(markdown(await call(client, 'search', { query_text: '' })).includes('Input needed'));
  });

  test('needsInput: unknown id suggests the 5 closest ids', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(((await call(client, 'store', { content: `Id test entry ${i} about compost bins.` })).structuredContent as { id: string }).id);
    const wrong = ids[2]!.slice(0, 20) + 'ZZZZZZ';
    const p = (await call(client, 'query', { id: wrong })).structuredContent as { kind: string; needsInput: { fields: string[]; suggestions: { id: string[] } } };
    assert.equal(p.kind, 'needsInput:v1');
    assert.deepEqual(p.needsInput.fields, ['id']);
    assert.equal(p.needsInput.suggestions.id.length, 5);
    for (const id of p.needsInput.suggestions.id) assert.ok(ids.includes(id) || /^[0-9A-Z]{26}$/.test(id));
    const found = (await call(client, 'query', { id: ids[3] })).structuredContent as { items: Array<{ id: string }> };
    assert.deepEqual(
      found.items.map((i) => i.id),
      [ids[3]],
    );
  });

  test('a ranked query with over 20 matches answers its results, with a narrowing hint whose count does not depend on limit', async () => {
    for (let i = 0; i < 24; i++) {
      await call(client, 'store', {
        content: `Broad test ${i}: the greenhouse watering schedule changes in spring.`,
        project_id: i % 2 ? 'garden' : 'farm',
        tags: [i % 3 ? 'water' : 'season'],
      });
    }
    type Entries = { kind: string; items: Array<{ project_id: string }>; hint: { matched: number; suggestions: Record<string, string[]> } | null };
    const p = (await call(client, 'query', { query: 'greenhouse watering schedule' })).structuredContent as Entries;
    assert.equal(p.kind, 'entries:v1');
    assert.equal(p.items.length, 5, 'the ranked answer is given');
    assert.ok(p.hint && p.hint.matched >= 24);
    assert.deepEqual(new Set(p.hint.suggestions.project_id), new Set(['garden', 'farm']));
    assert.ok(p.hint.suggestions.tags!.includes('water'));
    const wider = (await call(client, 'query', { query: 'greenhouse watering schedule', limit: 50 })).structuredContent as Entries;
    assert.equal(wider.hint?.matched, p.hint.matched, 'the match count does not depend on limit');
    const narrowed = (await call(client, 'query', { query: 'greenhouse watering schedule', project_id: 'garden', limit: 50 })).structuredContent as Entries;
    assert.equal(narrowed.kind, 'entries:v1');
    assert.equal(narrowed.hint, null);
    assert.equal(narrowed.items.length, 12);
    assert.ok(narrowed.items.every((i) => i.project_id === 'garden'));
  });

  test('a client with elicitation is asked natively and gets results', async () => {
    const asking = new Client({ name: 'eliciting', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    let asked = '';
    asking.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked = req.params.message;
      return { action: 'accept', content: { query: 'kiln temperature' } };
    });
    await asking.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
    try {
      const r = await call(asking, 'query', {});
      assert.ok(asked.length > 0, 'the client was asked');
      const p = r.structuredContent as { kind: string; items: Array<{ content: string }> };
      assert.equal(p.kind, 'entries:v1', JSON.stringify(p));
      assert.match(p.items[0]!.content, /kiln/);
    } finally {
      await asking.close();
    }
  });

  test('search: hits, cited context, used_filters, contains-any tags, time range, threshold', async () => {
    const a = (
      (await call(client, 'store', { content: 'Search test: backups of the billing database run at 02:00 UTC.', project_id: 'ops', tags: ['backup', 'db'] })).structuredContent as {
        id: string;
      }
    ).id;
    const b = (
      (await call(client, 'store', { content: 'Search test: log backups are kept for thirty days.', project_id: 'ops', tags: ['logs'] })).structuredContent as { id: string }
    ).id;
    const r = await call(client, 'search', { query_text: 'when do backups run', project_id: 'ops', tags: ['backup', 'nothing'] });
    const s = r.structuredContent as {
      hits: Array<{ id: string; text: string; timestamp: string; source_uri: null }>;
      context: string;
      used_filters: Record<string, unknown>;
      score_threshold: number;
    };
    assert.deepEqual(
      s.hits.map((h) => h.id),
      [a],
      'contains-any keeps only the tagged one',
    );
    assert.ok(s.context.split('\n')[1]!.startsWith(`${citation(a)} "`), 'after the data label, the first hit cited as [node_<hex>] with its text quoted');
    assert.deepEqual(s.used_filters, { project_id: 'ops', collection: null, memory_type: null, tags: ['backup', 'nothing'], topic: null, time_range: null });
    assert.equal(s.score_threshold, 0.25);
    const future = await call(client, 'search', { query_text: 'backups', project_id: 'ops', time_range: { start: '2100-01-01T00:00:00Z' } });
    assert.equal((future.structuredContent as { hits: unknown[] }).hits.length, 0);
    const all = (await call(client, 'search', { query_text: 'backups', project_id: 'ops', score_threshold: 0 })).structuredContent as { hits: Array<{ id: string }> };
    assert.ok([a, b].every((id) => all.hits.some((h) => h.id === id)));
  });

  test('push: chunks, counters, the same text twice is skipped, an edited source updates in place', async () => {
    const doc = Array.from({ length: 30 }, (_, i) => `Runbook step ${i}: check the pump pressure gauge number ${i} before opening valve ${i}.`).join(' ');
    const first = (await call(client, 'push', { text: doc, project_id: 'plant', source_uri: 'file://runbook.md', chunk_size: 64 })).structuredContent as {
      chunksIndexed: number;
      inserted: number;
      skippedDuplicates: number;
      chunkSize: number;
      tx_id: number;
    };
    assert.ok(first.chunksIndexed > 3);
    assert.equal(first.inserted, first.chunksIndexed);
    assert.equal(first.skippedDuplicates, 0);
    assert.equal(first.chunkSize, 64);
    const again = (await call(client, 'push', { text: doc, project_id: 'plant', source_uri: 'file://runbook.md', chunk_size: 64 })).structuredContent as Record<string, number>;
    assert.equal(again.inserted, 0);
    assert.equal(again.skippedDuplicates, first.chunksIndexed);
    assert.equal(again.tx_id, 0, 'nothing changed, no transaction');
    // Same token count, so chunk boundaries stay put and only the first chunk changes.
    const edited = doc.replace('before opening valve 0.', 'before closing valve 0.');
    const third = (await call(client, 'push', { text: edited, project_id: 'plant', source_uri: 'file://runbook.md', chunk_size: 64 })).structuredContent as Record<string, number>;
    assert.equal(third.updated, 1);
    assert.equal(third.inserted, 0);
    assert.equal(third.skippedDuplicates, first.chunksIndexed - 1);
    const found = (await call(client, 'search', { query_text: 'closing valve 0', project_id: 'plant', limit: 1 })).structuredContent as { hits: Array<{ text: string }> };
    assert.match(found.hits[0]!.text, /closing valve 0\./);
  });

  test('store reports exact and near duplicates without merging', async () => {
    const content = 'Duplicate test: the staging cluster is rebuilt every Sunday night.';
    const first = (await call(client, 'store', { content, project_id: 'dupes' })).structuredContent as { id: string };
    const second = (await call(client, 'store', { content: `  ${content.toUpperCase()} `, project_id: 'dupes' })).structuredContent as {
      id: string;
      possible_duplicates: Array<{ id: string; match: string; score: number }>;
    };
    assert.notEqual(second.id, first.id, 'both are kept');
    assert.deepEqual(
      second.possible_duplicates.find((d) => d.match === 'exact'),
      { id: first.id, score: 1, match: 'exact' },
    );
    const near = (await call(client, 'store', { content: 'Duplicate test: the staging cluster is rebuilt every Sunday evening.', project_id: 'dupes' })).structuredContent as {
      possible_duplicates: Array<{ id: string; match: string }>;
    };
    assert.ok(
      near.possible_duplicates.some((d) => d.match === 'near' && [first.id, second.id].includes(d.id)),
      JSON.stringify(near.possible_duplicates),
    );
    const other = (await call(client, 'store', { content: 'Duplicate test: a completely unrelated note about violin strings.', project_id: 'dupes' })).structuredContent as {
      possible_duplicates: unknown[];
    };
    assert.deepEqual(other.possible_duplicates, []);
  });
});
