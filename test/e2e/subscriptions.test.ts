import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceUpdatedNotificationSchema, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../../src/app.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { changesFor, MAX_CHANGED_IDS } from '../../src/mcp/subscriptions.js';
import { resolveUri } from '../../src/mcp/resources/router.js';
import { call, childEnv, httpClient, startServe, stdioClient, tempDir } from '../helpers/cli.js';

interface Updated {
  uri: string;
  /** Top-level params as they came over the wire (fallback handler: no schema stripping). */
  raw: Record<string, any>;
}

/**
 * Records every resources/updated notification a client receives: raw (the fallback handler
 * sees the params exactly as they came over the wire) and as the SDK client's own schema parses
 * them (what a handler registered with ResourceUpdatedNotificationSchema gets).
 */
function recorder(client: Client) {
  const raw: Updated[] = [];
  const parsed: Array<Record<string, any>> = [];
  const waiters: Array<() => void> = [];
  client.fallbackNotificationHandler = async (n) => {
    if (n.method !== 'notifications/resources/updated') return;
    raw.push({ uri: String(n.params?.uri), raw: n.params as Record<string, any> });
    parsed.push(ResourceUpdatedNotificationSchema.parse(n).params as Record<string, any>);
    for (const w of waiters.splice(0)) w();
  };
  return {
    raw,
    parsed,
    async waitFor(pred: (p: Record<string, any>) => boolean, ms = 10_000): Promise<Record<string, any>> {
      const deadline = Date.now() + ms;
      for (;;) {
        const hit = parsed.find(pred);
        if (hit) return hit;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching notification in ${ms} ms; got ${JSON.stringify(parsed)}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 200));
          waiters.push(() => (clearTimeout(t), resolve()));
        });
      }
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function storeId(client: Client, args: Record<string, unknown>): Promise<{ id: string; tx_id: number }> {
  const r = await call(client, 'store', args);
  assert.equal(r.isError, undefined, JSON.stringify(r.content));
  return r.structuredContent as { id: string; tx_id: number };
}

describe('resources/subscribe across HTTP sessions', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;
  let a: Client;
  let b: Client;

  before(async () => {
    dir = await tempDir();
    server = await startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path }));
    a = await httpClient(server.mcpUrl, 'writer-a');
    b = await httpClient(server.mcpUrl, 'subscriber-b');
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await server?.stop();
    await dir?.remove();
  });

  test('B subscribes, A stores: B is notified with resource_uri, tx_id, change_type and changed_ids; after unsubscribe nothing arrives', async () => {
    const rec = recorder(b);
    assert.deepEqual(await b.subscribeResource({ uri: 'knowledge://entries' }), {});
    const s = await storeId(a, { content: 'Subscribers hear about this memory.', topic: 'subs' });
    const n = await rec.waitFor((p) => p._meta?.tx_id === s.tx_id);
    assert.equal(n.uri, 'knowledge://entries');
    // What survives the SDK client's schema: uri and _meta.
    assert.equal(n._meta.resource_uri, 'knowledge://entries');
    assert.equal(n._meta.change_type, 'upsert');
    assert.deepEqual(n._meta.changed_ids, [s.id]);
    assert.equal(n._meta.truncated, false);
    assert.equal(n.tx_id, undefined, 'the SDK schema strips unknown top-level params');
    // On the wire the same fields are at the top level too.
    const wire = rec.raw.find((r) => r.raw.tx_id === s.tx_id);
    assert.ok(wire, 'top-level tx_id on the wire');
    assert.equal(wire.raw.resource_uri, 'knowledge://entries');
    assert.equal(wire.raw.change_type, 'upsert');
    assert.deepEqual(wire.raw.changed_ids, [s.id]);
    assert.equal(wire.raw.truncated, false);
    // The follow-up read shows the change.
    const read = await b.readResource({ uri: `knowledge://entries/${s.id}` });
    assert.ok(JSON.parse((read.contents[0] as { text: string }).text).items[0].id === s.id);

    // A sentinel subscription that stays: once its notification for the next write arrives, the
    // server has processed that transaction for every subscription of the session.
    await b.subscribeResource({ uri: 'knowledge://history/transactions' });
    assert.deepEqual(await b.unsubscribeResource({ uri: 'knowledge://entries' }), {});
    const s2 = await storeId(a, { content: 'Nobody is listening for this one.' });
    await rec.waitFor((p) => p.uri === 'knowledge://history/transactions' && p._meta.tx_id === s2.tx_id);
    await sleep(300);
    const late = rec.parsed.filter((p) => p.uri === 'knowledge://entries' && p._meta.tx_id >= s2.tx_id);
    assert.deepEqual(late, [], 'nothing for the unsubscribed resource after the acknowledgement');
    await b.unsubscribeResource({ uri: 'knowledge://history/transactions' });
  });

  test('subscriptions match by resource: project filter, single entry, history, triples', async () => {
    const rec = recorder(b);
    const target = await storeId(a, { content: 'An entry someone watches.', project_id: 'watched' });
    await b.subscribeResource({ uri: 'knowledge://entries?project_id=watched' });
    await b.subscribeResource({ uri: `knowledge://entries/${target.id}` });
    await b.subscribeResource({ uri: 'knowledge://history/transactions' });
    await b.subscribeResource({ uri: 'knowledge://graph/triples' });

    const other = await storeId(a, { content: 'Another project entirely.', project_id: 'elsewhere' });
    const inWatched = await storeId(a, { content: 'A second watched entry.', project_id: 'watched' });
    await rec.waitFor((p) => p.uri === 'knowledge://entries?project_id=watched' && p._meta.tx_id === inWatched.tx_id);
    await rec.waitFor((p) => p.uri === 'knowledge://history/transactions' && p._meta.tx_id === inWatched.tx_id);
    const history = await rec.waitFor((p) => p.uri === 'knowledge://history/transactions' && p._meta.tx_id === other.tx_id);
    assert.deepEqual(history._meta.changed_ids, [other.id]);
    assert.ok(!rec.parsed.some((p) => p.uri === 'knowledge://entries?project_id=watched' && p._meta.tx_id === other.tx_id), 'other project filtered out');
    assert.ok(!rec.parsed.some((p) => p.uri === `knowledge://entries/${target.id}`), 'the single entry did not change');
    assert.ok(!rec.parsed.some((p) => p.uri === 'knowledge://graph/triples'), 'no edge changed');

    await assert.rejects(b.subscribeResource({ uri: 'knowledge://nope' }), (err: Error & { code?: number }) => {
      assert.equal(err.code, -32002);
      assert.match(err.message, /^MCP error -32002: Resource not found: knowledge:\/\/nope\./);
      assert.equal(err.message.match(/MCP error/g)?.length, 1, 'one prefix');
      return true;
    });
    for (const uri of ['knowledge://entries?project_id=watched', `knowledge://entries/${target.id}`, 'knowledge://history/transactions', 'knowledge://graph/triples']) {
      await b.unsubscribeResource({ uri });
    }
  });
});

test("resources/subscribe over stdio: the session's own write notifies it", async () => {
  const dir = await tempDir();
  const { client } = await stdioClient(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path }));
  try {
    const rec = recorder(client);
    await client.subscribeResource({ uri: 'knowledge://entries' });
    const s = await storeId(client, { content: 'Stdio subscribers hear this.' });
    const n = await rec.waitFor((p) => p._meta?.tx_id === s.tx_id);
    assert.equal(n.uri, 'knowledge://entries');
    assert.equal(n._meta.change_type, 'upsert');
    assert.deepEqual(n._meta.changed_ids, [s.id]);
    await client.subscribeResource({ uri: 'knowledge://history/transactions' });
    await client.unsubscribeResource({ uri: 'knowledge://entries' });
    const s2 = await storeId(client, { content: 'Stdio: not after unsubscribe.' });
    await rec.waitFor((p) => p.uri === 'knowledge://history/transactions' && p._meta.tx_id === s2.tx_id);
    await sleep(300);
    assert.deepEqual(
      rec.parsed.filter((p) => p.uri === 'knowledge://entries' && p._meta.tx_id >= s2.tx_id),
      [],
    );
  } finally {
    await client.close();
    await dir.remove();
  }
});

test('notifications split by change_type and bound changed_ids', () => {
  const r = resolveUri('knowledge://entries')!;
  const changes = Array.from({ length: 150 }, (_, i) => ({
    entity: 'node' as const,
    id: `N${String(i).padStart(3, '0')}`,
    change_type: i % 2 === 0 ? ('upsert' as const) : ('delete' as const),
    project_id: 'p',
    kind: 'memory',
  }));
  changes.push({ entity: 'edge' as never, id: 'E1', change_type: 'upsert', project_id: null as never, kind: null as never });
  const out = changesFor('knowledge://entries', r, { tx_id: 9, op: 'bulk', changes });
  assert.deepEqual(
    out.map((o) => o.change_type),
    ['upsert', 'delete'],
  );
  assert.equal(out[0]!.changed_ids.length, 75);
  assert.equal(out[0]!.truncated, false);
  assert.ok(!out[0]!.changed_ids.includes('E1'), 'edges are not entries');
  const many = changesFor('knowledge://history/transactions', resolveUri('knowledge://history/transactions')!, {
    tx_id: 10,
    op: 'bulk',
    changes: changes.map((c) => ({ ...c, change_type: 'upsert' as const })),
  });
  assert.equal(many.length, 1);
  assert.equal(many[0]!.changed_ids.length, MAX_CHANGED_IDS);
  assert.equal(many[0]!.truncated, true);
});

test('many sessions subscribing and closing leave no change-feed listeners behind', async () => {
  const changes = new EventEmitter();
  const sent: ServerNotification[] = [];
  const app = { services: { changes }, db: { query: async () => [] }, logger: { child: () => ({ debug() {}, error() {}, warn() {} }), error() {} } } as unknown as App;
  for (let i = 0; i < 50; i++) {
    const mcp = createMcpServer(app, { actor: `t${i}` });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: 'leak', version: '1' });
    await client.connect(clientSide);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void sent.push(n as ServerNotification));
    await client.subscribeResource({ uri: 'knowledge://entries' });
    await client.subscribeResource({ uri: 'knowledge://graph/triples' });
    assert.equal(changes.listenerCount('tx'), 1, 'one listener per session with subscriptions');
    changes.emit('tx', { tx_id: i + 1, op: 'store', changes: [{ entity: 'node', id: `X${i}`, change_type: 'upsert', project_id: 'default', kind: 'memory' }] });
    await sleep(5);
    await client.close();
    assert.equal(changes.listenerCount('tx'), 0, 'the listener goes with the session');
  }
  assert.equal(sent.length, 50);
});
