import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, startServe, tempDir, toolError, useEmbeddedServer } from '../helpers/cli.js';

describe('update, delete, undo/redo and history over MCP HTTP', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;

  useEmbeddedServer((f) => ({ dir, server, client } = f));

  async function ok(name: string, args: Record<string, unknown>): Promise<any> {
    const r = await call(client, name, args);
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }

  /** The entry as `query` by id returns it, or null when it is not live. */
  async function entry(id: string): Promise<{ content: string } | null> {
    const r = await ok('query', { id });
    return r.kind === 'entries:v1' ? r.items[0] : null;
  }

  test('tools/list has update, delete, undo and history with their schemas', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['update', 'delete', 'undo', 'history']) {
      const t = byName.get(name);
      assert.ok(t, `${name} listed`);
      assert.equal(t.outputSchema?.type, 'object');
      assert.ok(t.description?.includes('Example'));
    }
    assert.equal(byName.get('delete')!.annotations?.destructiveHint, true);
    assert.equal(byName.get('history')!.annotations?.readOnlyHint, true);
    assert.deepEqual(byName.get('update')!.inputSchema.required, ['id']);
  });

  test('store → update → delete → undo ×2 → redo, and history lists it all', async () => {
    const stored = await ok('store', { content: 'Staging deploys run at 09:00 UTC.', topic: 'deploy schedule' });
    const id = stored.id as string;

    const updated = await ok('update', { id, content: 'Staging deploys run at 10:00 UTC.', rationale: 'moved after stand-up' });
    assert.equal(updated.kind, 'updated:v1');
    assert.equal(updated.id, id);
    assert.equal(updated.version, 2);
    assert.equal(updated.superseded_id, null);
    assert.ok(updated.tx_id > stored.tx_id);

    const deleted = await ok('delete', { id, rationale: 'cleanup' });
    assert.equal(deleted.kind, 'deleted:v1');
    assert.deepEqual(deleted.ids, [id]);
    assert.equal(deleted.edges_deleted, 0);
    assert.equal(await entry(id), null, 'gone from reads');

    const again = await call(client, 'delete', { id });
    assert.equal(toolError(again)?.code, 'CONFLICT');
    assert.match(toolError(again)!.message, /already deleted/);
    const unknown = await call(client, 'delete', { ids: ['01NOPE0000000000000000000X'] });
    assert.equal(toolError(unknown)?.code, 'NODE_NOT_FOUND');

    // Updating a deleted entry is an error (a mutation never answers a success shape), and changes nothing.
    const ask = await call(client, 'update', { id, content: 'x' });
    assert.equal(ask.isError, true);
    assert.equal(toolError(ask)?.code, 'NODE_NOT_FOUND');
    assert.equal(toolError(ask)?.details?.deleted, true);

    // Undo #1 reverts the delete: back with its updated content.
    const u1 = await ok('undo', {});
    assert.equal(u1.kind, 'undone:v1');
    assert.equal(u1.op, 'undo');
    assert.deepEqual(u1.reverted_tx_ids, [deleted.tx_id]);
    assert.deepEqual(u1.entities, [{ entity: 'node', entity_id: id, change_type: 'restore' }]);
    assert.equal((await entry(id))?.content, 'Staging deploys run at 10:00 UTC.');

    // Undo #2 reverts the update.
    const u2 = await ok('undo', {});
    assert.deepEqual(u2.reverted_tx_ids, [updated.tx_id]);
    assert.equal((await entry(id))?.content, 'Staging deploys run at 09:00 UTC.');

    // Redo re-applies the update: the entry is back with its updated content.
    const r1 = await ok('undo', { redo: true });
    assert.equal(r1.op, 'redo');
    assert.deepEqual(r1.reverted_tx_ids, [u2.tx_id]);
    assert.equal((await entry(id))?.content, 'Staging deploys run at 10:00 UTC.');

    const both = await call(client, 'undo', { tx_id: 1, steps: 2 });
    assert.equal(toolError(both)?.code, 'INVALID_PARAMS');
    const conflict = await call(client, 'undo', { tx_id: stored.tx_id });
    assert.equal(toolError(conflict)?.code, 'CONFLICT');
    assert.equal(toolError(conflict)?.details?.conflicting_tx_id, r1.tx_id);

    const h = await ok('history', { entity_id: id, limit: 10 });
    assert.equal(h.kind, 'history:v1');
    assert.deepEqual(
      h.items.map((i: any) => i.op),
      ['redo', 'undo', 'undo', 'delete', 'update', 'store'],
    );
    const byTx = new Map(h.items.map((i: any) => [i.tx_id, i]));
    assert.equal((byTx.get(deleted.tx_id) as any).reverted_by, u1.tx_id);
    assert.equal((byTx.get(u2.tx_id) as any).reverted_by, r1.tx_id);
    assert.deepEqual((byTx.get(u1.tx_id) as any).reverts, [deleted.tx_id]);
    assert.equal((byTx.get(updated.tx_id) as any).rationale, 'moved after stand-up');
    assert.deepEqual((byTx.get(stored.tx_id) as any).changes, [{ entity: 'node', entity_id: id, change_type: 'create' }]);
    assert.equal(h.next_cursor, null);
    assert.deepEqual(h.contract_markers, { index: 1, cards: 6, version: 'v1' });

    // Paging by two walks the same six transactions.
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await ok('history', { entity_id: id, limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((i: any) => i.tx_id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(
      seen,
      h.items.map((i: any) => i.tx_id),
    );

    const md = await call(client, 'history', { entity_id: id, limit: 2 });
    const text = md.content[0];
    assert.ok(text?.type === 'text' && text.text.includes('<!-- kind:transaction-index:v1 -->'));
  });

  test('update with supersedes closes the old entry and creates a new one', async () => {
    const stored = await ok('store', { content: 'The on-call rotation is weekly.', topic: 'on-call' });
    const s = await ok('update', { id: stored.id, content: 'The on-call rotation is bi-weekly.', supersedes: true });
    assert.notEqual(s.id, stored.id);
    assert.equal(s.superseded_id, stored.id);
    assert.equal(s.version, 1);
    assert.ok(s.valid_from);
    assert.equal((await entry(s.id))?.content, 'The on-call rotation is bi-weekly.');
    const u = await ok('undo', {});
    assert.equal(u.entities.length, 2);
    assert.equal(await entry(s.id), null);
  });

  test('update of an unknown id is a NODE_NOT_FOUND error with close ids, and writes nothing', async () => {
    const before = await ok('history', { limit: 1 });
    const r = await call(client, 'update', { id: 'no-such-id', content: 'x' });
    assert.equal(r.isError, true);
    const err = toolError(r)!;
    assert.equal(err.code, 'NODE_NOT_FOUND');
    const suggestions = err.details?.suggestions as string[];
    assert.ok(suggestions.length > 0 && suggestions.length <= 5);
    assert.equal((await ok('history', { limit: 1 })).items[0].tx_id, before.items[0].tx_id, 'no transaction was written');
  });

  test("undo {} reverts only the calling session's writes; scope all reverts anyone's", async () => {
    const other = new Client({ name: 'other-session', version: '1.0.0' });
    await other.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
    try {
      const mine = await ok('store', { content: 'Session A wrote this: the lab opens at eight.' });
      const theirs = (await call(other, 'store', { content: 'Session B wrote this: the lab closes at six.' })).structuredContent as { id: string; tx_id: number };
      const u = await ok('undo', {});
      assert.deepEqual(u.reverted_tx_ids, [mine.tx_id], "my newest write, not the other session's newer one");
      assert.ok(await entry(theirs.id), "the other session's memory is untouched");
      const otherUndo = (await call(other, 'undo', {})).structuredContent as { reverted_tx_ids: number[] };
      assert.deepEqual(otherUndo.reverted_tx_ids, [theirs.tx_id]);
      const redoMine = await ok('undo', { redo: true });
      assert.deepEqual(redoMine.reverted_tx_ids, [u.tx_id], 'redo is scoped to my undos too');
      const all = await ok('undo', { scope: 'all' });
      assert.deepEqual(all.reverted_tx_ids, [redoMine.tx_id], 'scope all takes the newest transaction of anyone');
    } finally {
      await other.close();
    }
  });

  test('push, an in-place update by push, and relate are undone and redone like any other write', async () => {
    const doc = Array.from({ length: 12 }, (_, i) => `Boiler check ${i}: read gauge ${i} and log it.`).join(' ');
    const first = await ok('push', { text: doc, project_id: 'boiler', source_uri: 'file://boiler.md', chunk_size: 24 });
    assert.ok(first.inserted > 1);
    const edited = await ok('push', { text: doc.replace('read gauge 0', 'wipe gauge 0'), project_id: 'boiler', source_uri: 'file://boiler.md', chunk_size: 24 });
    assert.equal(edited.updated, 1);
    const changedId = edited.ids.updated[0] as string;
    assert.match((await entry(changedId))!.content, /wipe gauge 0/);

    // Undo the in-place update: the chunk has its first text again.
    const u1 = await ok('undo', {});
    assert.deepEqual(u1.reverted_tx_ids, [edited.tx_id]);
    assert.match((await entry(changedId))!.content, /read gauge 0/);
    // Undo the push itself: every chunk it inserted is gone, from reads and from search.
    const u2 = await ok('undo', {});
    assert.deepEqual(u2.reverted_tx_ids, [first.tx_id]);
    for (const id of first.ids.inserted as string[]) assert.equal(await entry(id), null);
    const gone = await ok('search', { query_text: 'boiler gauge', project_id: 'boiler', score_threshold: 0 });
    assert.deepEqual(gone.hits, []);
    // Redo brings them back, searchable again.
    await ok('undo', { redo: true });
    for (const id of first.ids.inserted as string[]) assert.ok(await entry(id), `chunk ${id} restored`);
    const back = await ok('search', { query_text: 'boiler gauge', project_id: 'boiler', score_threshold: 0, limit: 50 });
    assert.equal(back.hits.length, first.inserted);

    // relate, then undo: the triple and the entity it created are gone; redo restores them.
    const r = await ok('relate', { subject: first.ids.inserted[0], predicate: 'checked_by', object: 'Night shift', project_id: 'boiler' });
    const g1 = await ok('query_graph', { node: first.ids.inserted[0] });
    assert.ok(g1.triples.some((t: any) => t.predicate === 'checked_by'));
    const u3 = await ok('undo', {});
    assert.deepEqual(u3.reverted_tx_ids, [r.tx_id]);
    const g2 = await ok('query_graph', { node: first.ids.inserted[0] });
    assert.equal(g2.triples.length, 0);
    await ok('undo', { redo: true });
    const g3 = await ok('query_graph', { node: first.ids.inserted[0] });
    assert.ok(g3.triples.some((t: any) => t.predicate === 'checked_by'));
  });
});
