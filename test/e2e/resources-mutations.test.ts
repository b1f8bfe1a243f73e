import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { call, childEnv, httpClient, startServe, tempDir } from '../helpers/cli.js';

/**
 * Resources and subscriptions under updates, deletes and relations (the update, delete and
 * relate tools), as opposed to resources-read.test.ts, which only needs store.
 */

interface Page {
  resource_uri: string;
  as_of_tx_id: number;
  items: any[];
  next_cursor: string | null;
}

async function read(client: Client, uri: string): Promise<Page> {
  const res = await client.readResource({ uri });
  return JSON.parse((res.contents[0] as { text: string }).text) as Page;
}

async function ok(client: Client, tool: string, args: Record<string, unknown>): Promise<any> {
  const r = await call(client, tool, args);
  assert.equal(r.isError, undefined, `${tool}: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
}

function updates(client: Client) {
  const got: Array<Record<string, any>> = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void got.push(n.params as Record<string, any>));
  return {
    got,
    async waitFor(pred: (p: Record<string, any>) => boolean, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        const hit = got.find(pred);
        if (hit) return hit;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no matching notification; got ${JSON.stringify(got)}`);
    },
  };
}

describe('resources under updates, deletes and relations', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;
  let reader: Client;
  let writer: Client;
  const ids: string[] = [];

  before(async () => {
    dir = await tempDir();
    server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path }));
    reader = await httpClient(server.mcpUrl, 'reader');
    writer = await httpClient(server.mcpUrl, 'writer');
    for (let i = 0; i < 30; i++) ids.push((await ok(writer, 'store', { content: `Mutation fixture ${i} about subsystem ${i}.`, topic: `fixture ${i}` })).id);
  });
  after(async () => {
    await reader?.close();
    await writer?.close();
    await server?.stop();
    await dir?.remove();
  });

  test("pages stay on the first page's snapshot while other clients store, update and delete", async () => {
    const sorted = [...ids].sort();
    const seen: any[] = [];
    let page = await read(reader, 'knowledge://entries?limit=10');
    seen.push(...page.items);
    // Between pages: delete entries on pages already read and not yet read, update one ahead, store more.
    await ok(writer, 'delete', { ids: [sorted[2], sorted[25], sorted[26]] });
    await ok(writer, 'update', { id: sorted[15], content: 'Rewritten after the first page.' });
    await ok(writer, 'store', { content: 'Stored after the first page.' });
    while (page.next_cursor) {
      page = await read(reader, `knowledge://entries?limit=10&cursor=${page.next_cursor}`);
      seen.push(...page.items);
      await ok(writer, 'store', { content: `Stored between pages at ${seen.length}.` });
    }
    assert.deepEqual(
      seen.map((i) => i.id),
      sorted,
      'each entry of the snapshot once, in id order, deleted ones included',
    );
    assert.equal(
      seen.find((i) => i.id === sorted[15]).content,
      'Mutation fixture ' + ids.indexOf(sorted[15]!) + ` about subsystem ${ids.indexOf(sorted[15]!)}.`,
      "the snapshot's content",
    );

    const now = await read(reader, 'knowledge://entries?limit=100');
    const nowIds = now.items.map((i) => i.id);
    for (const gone of [sorted[2], sorted[25], sorted[26]]) assert.ok(!nowIds.includes(gone), 'deleted entries are gone from a fresh read');
    assert.equal(now.items.find((i) => i.id === sorted[15]).content, 'Rewritten after the first page.');
    await assert.rejects(reader.readResource({ uri: `knowledge://entries/${sorted[2]}` }), /not found/i);
  });

  test('subscribers hear deletes as change_type delete, and relations on graph/triples', async () => {
    const rec = updates(reader);
    await reader.subscribeResource({ uri: 'knowledge://entries' });
    await reader.subscribeResource({ uri: 'knowledge://graph/triples' });
    const a = (await ok(writer, 'store', { content: 'Alice owns the billing service.', topic: 'billing owner' })).id;
    const rel = await ok(writer, 'relate', { subject: a, predicate: 'mentions', object: 'Billing' });
    const edgeId = rel.triples[0].id;
    const edgeNote = await rec.waitFor((p) => p.uri === 'knowledge://graph/triples' && p._meta.tx_id === rel.tx_id);
    assert.deepEqual(edgeNote._meta.changed_ids, [edgeId]);
    assert.equal(edgeNote._meta.change_type, 'upsert');
    // The named entity the relation created is a node, but not an entry.
    assert.ok(!rec.got.some((p) => p.uri === 'knowledge://entries' && p._meta.tx_id === rel.tx_id), 'entities are not entries');

    const triples = await read(reader, 'knowledge://graph/triples');
    const t = triples.items.find((i) => i.id === edgeId);
    assert.equal(t.src, a);
    assert.equal(t.predicate, 'mentions');
    for (const k of ['dst', 'edge_type', 'weight', 'valid_from', 'valid_to']) assert.ok(k in t);
    const entries = await read(reader, 'knowledge://entries?limit=100');
    assert.ok(!entries.items.some((i) => i.id === t.dst), 'the entity node is not listed as an entry');
    assert.ok(entries.items.every((i) => i.kind !== 'entity'));

    const del = await ok(writer, 'delete', { id: a });
    const entryNote = await rec.waitFor((p) => p.uri === 'knowledge://entries' && p._meta.tx_id === del.tx_id);
    assert.equal(entryNote._meta.change_type, 'delete');
    assert.deepEqual(entryNote._meta.changed_ids, [a]);
    const edgeGone = await rec.waitFor((p) => p.uri === 'knowledge://graph/triples' && p._meta.tx_id === del.tx_id);
    assert.equal(edgeGone._meta.change_type, 'delete');
    assert.deepEqual(edgeGone._meta.changed_ids, [edgeId]);
    const after = await read(reader, 'knowledge://graph/triples');
    assert.ok(!after.items.some((i) => i.id === edgeId));

    // Superseding: one transaction closes the old entry and creates a new one; both are upserts.
    const b = (await ok(writer, 'store', { content: 'Deploys happen on Tuesdays.' })).id;
    const sup = await ok(writer, 'update', { id: b, content: 'Deploys happen on Thursdays.', supersedes: true });
    const supNote = await rec.waitFor((p) => p.uri === 'knowledge://entries' && p._meta.tx_id === sup.tx_id);
    assert.equal(supNote._meta.change_type, 'upsert');
    assert.deepEqual([...supNote._meta.changed_ids].sort(), [b, sup.id].sort());

    // Undo of the delete brings the entry back: an upsert again.
    const undo = await ok(writer, 'undo', { tx_id: del.tx_id });
    const back = await rec.waitFor((p) => p.uri === 'knowledge://entries' && p._meta.tx_id === undo.tx_id);
    assert.equal(back._meta.change_type, 'upsert');
    assert.ok(back._meta.changed_ids.includes(a));
    const history = await read(reader, 'knowledge://history/transactions?limit=10');
    assert.equal(history.items[0].tx_id, undo.tx_id);
    assert.equal(history.items[0].op, 'undo');
    assert.equal(history.items.find((i) => i.tx_id === del.tx_id)?.reverted_by, undo.tx_id);
  });
});
