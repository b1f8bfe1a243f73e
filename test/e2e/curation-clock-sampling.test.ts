import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { MERGE_JOB_MIN_SOURCES } from '../../src/services/merge.js';
import { fromBytes } from '../../src/store/vector-bytes.js';
import { tempDir, toolError } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

const DAY = 86_400_000;

// The real app and MCP server in process, so the test owns the clock (EC-MCP-002) and can be a
// client that answers sampling/createMessage; the client is the SDK's, over its in-memory pair.
describe('curation with a moving clock, MCP sampling and the merge job', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let offsetMs = 0;
  const clients: Client[] = [];

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: 'all' }), createLogger('warn'), {
      clock: { now: () => new Date(Date.now() + offsetMs) },
    });
  });
  after(async () => {
    for (const c of clients) await c.close();
    await app.close();
    await dir.remove();
  });

  async function connect(opts: { sampling?: (req: CreateMessageRequest) => string } = {}): Promise<Client> {
    const client = await inMemoryClient(app, { name: 'curation-test', actor: `inproc-${clients.length}`, sampling: opts.sampling });
    clients.push(client);
    return client;
  }

  async function ok(client: Client, name: string, args: Record<string, unknown>, onprogress?: (p: { progress: number; total?: number }) => void): Promise<any> {
    const r = (await client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined)) as CallToolResult;
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }

  test('restore_from_hash answers RECOVERY_WINDOW_EXPIRED with the deletion time after 30 days (TC-CUR-007, EC-MCP-002)', async () => {
    const client = await connect();
    const stored = await ok(client, 'store', { content: 'The old VPN endpoint is vpn1.example.org.' });
    const forgotten = await ok(client, 'forget_concept', { node_id: stored.id, reason: 'obsolete', rationale: 'the VPN moved to a new endpoint' });
    offsetMs = 31 * DAY;
    try {
      const r = (await client.callTool({ name: 'restore_from_hash', arguments: { reversal_hash: forgotten.reversal_hash } })) as CallToolResult;
      const err = toolError(r)!;
      assert.equal(err.code, 'RECOVERY_WINDOW_EXPIRED');
      assert.equal((err as any).rpc_code, -32011);
      const deletedAt = new Date(err.details.deleted_at).getTime();
      assert.ok(Math.abs(deletedAt - Date.now()) < DAY, 'the deletion time is reported');
      assert.ok(err.message.includes(err.details.deleted_at));
      assert.equal((await ok(client, 'search_tombstones', {})).items.length, 0, 'outside the window: not listed');
      offsetMs = 29 * DAY;
      assert.deepEqual(
        (await ok(client, 'search_tombstones', {})).items.map((i: any) => i.id),
        [stored.id],
      );
      const restored = await ok(client, 'restore_from_hash', { reversal_hash: forgotten.reversal_hash });
      assert.equal(restored.nodes[0].id, stored.id);
    } finally {
      offsetMs = 0;
    }
  });

  test('restore_from_hash puts back the exact vectors without embedding again, in every index at once; past the window the sweep drops them', async () => {
    const client = await connect();
    const stored = await ok(client, 'store', { content: 'The tide clock in the harbour office runs eleven minutes fast.' });
    // The store answered before its vectors; what follows reads them from the tables and indexes directly.
    await app.services.pendingVectors.settled();
    const nid = (await app.db.query<{ nid: number }>(`select nid from nodes where id = $1`, [stored.id]))[0]!.nid;
    const vectors = async () =>
      (
        await app.db.query<{ space: string; model_id: string; dim: number; vector: Uint8Array | null }>(
          `select space, model_id, dim, vector from embeddings where node_nid = $1 order by space`,
          [nid],
        )
      ).map((r) => [r.space, r.model_id, r.vector ? Buffer.from(r.vector).toString('hex') : null, String(r.dim)]);
    // Is the key in each space's index? (`among` scores exactly that key, so it answers it only when indexed.)
    const indexed = async (rows: Array<Array<string | null>>) => {
      const out: Record<string, boolean> = {};
      for (const [space, , hex, dim] of rows) {
        const hits = await app.indexes.search(space as never, fromBytes(Buffer.from(hex!, 'hex'), Number(dim)), 1, { among: [nid] });
        out[space!] = hits.some((h) => h.key === nid);
      }
      return out;
    };
    const before = await vectors();
    assert.ok(before.length >= 3 && before.every((v) => v[2] !== null), `embedded in every space: ${before.map((v) => v[0]).join(',')}`);
    // Found by its own vector in each space where that finds anything (not E11 here: no entities).
    const everywhere = await indexed(before);
    assert.ok(everywhere.E1 && everywhere.E13 && Object.values(everywhere).filter(Boolean).length >= 3, JSON.stringify(everywhere));

    const forgotten = await ok(client, 'forget_concept', { node_id: stored.id, reason: 'obsolete', rationale: 'the tide clock was repaired' });
    assert.ok(
      (await vectors()).every((v) => v[2] === null),
      'retracted from the feed',
    );
    await app.indexSync.pull(); // forget answers before the replicas drop the keys (search skips deleted nodes meanwhile)
    assert.deepEqual(await indexed(before), Object.fromEntries(before.map((v) => [v[0], false])), 'out of every index');

    let embedCalls = 0;
    const embed = app.embedder.embed.bind(app.embedder);
    app.embedder.embed = (...a: Parameters<typeof embed>) => (embedCalls++, embed(...a));
    try {
      const restored = await ok(client, 'restore_from_hash', { reversal_hash: forgotten.reversal_hash });
      assert.equal(restored.searchable, true);
      assert.deepEqual(await indexed(before), everywhere, 'back in every index when restore answers');
      assert.equal(embedCalls, 0, 'nothing embedded');
    } finally {
      app.embedder.embed = embed;
    }
    assert.deepEqual(await vectors(), before, 'the same vectors, byte for byte');
    assert.equal((await app.db.query(`select 1 from embedding_outbox where nid = $1`, [nid])).length, 0, 'no embedding owed');
    const hits = await ok(client, 'search', { query_text: 'tide clock harbour office', score_threshold: 0 });
    assert.equal(hits.hits[0].id, stored.id);

    // Kept again by a second forget; once the window is over the sweep drops them.
    await ok(client, 'forget_concept', { node_id: stored.id, reason: 'obsolete', rationale: 'the tide clock was repaired again' });
    const kept = async () => (await app.db.query(`select 1 from retained_embeddings where node_nid = $1`, [nid])).length;
    assert.equal(await kept(), before.length);
    offsetMs = 29 * DAY;
    try {
      await app.services.curation.sweepKept();
      assert.equal(await kept(), before.length, 'inside the window: kept');
      offsetMs = 31 * DAY;
      assert.ok((await app.services.curation.sweepKept()) >= before.length);
      assert.equal(await kept(), 0, 'past the window: dropped');
    } finally {
      offsetMs = 0;
    }
  });

  test("summarize asks the client's model through sampling when the client declares it", async () => {
    const prompts: string[] = [];
    const client = await connect({
      sampling: (req) => {
        const content = req.params.messages[0]!.content;
        const block = Array.isArray(content) ? content[0] : content;
        prompts.push(block && block.type === 'text' ? block.text : '');
        return 'Deploys to production happen on Tuesdays after the 10:00 stand-up.';
      },
    });
    const a = await ok(client, 'store', { content: 'Production deploys happen on Tuesdays.' });
    const b = await ok(client, 'store', { content: 'Production deploys happen on Tuesdays, after the 10:00 stand-up.' });
    const m = await ok(client, 'merge_concepts', { source_node_ids: [a.id, b.id], target_name: 'Deploy day', rationale: 'both state the deploy day' });
    assert.equal(m.summarized_by, 'sampling');
    assert.equal(m.summary_model, 'test-model-1');
    assert.equal(prompts.length, 1);
    assert.match(prompts[0]!, /Production deploys happen on Tuesdays, after the 10:00 stand-up\./);
    const merged = await ok(client, 'query', { id: m.merged.id });
    assert.equal(merged.items[0].content, 'Deploys to production happen on Tuesdays after the 10:00 stand-up.');

    const plain = await connect();
    const c = await ok(plain, 'store', { content: 'Production deploys are frozen in December. Hotfixes still ship.' });
    const d = await ok(plain, 'store', { content: 'Production deploys are frozen in December.' });
    const e = await ok(plain, 'merge_concepts', { source_node_ids: [c.id, d.id], target_name: 'December freeze', rationale: 'both state the December freeze' });
    assert.equal(e.summarized_by, 'extractive');
    assert.equal(e.summary_model, null);
    const text = (await ok(plain, 'query', { id: e.merged.id })).items[0].content as string;
    assert.match(text, /frozen in December/);
    assert.ok(text.split('Production deploys are frozen in December.').length <= 2, 'a sentence is not repeated');
  });

  test('a merge of many nodes runs as a job and reports progress; undo brings every source back', async () => {
    const client = await connect();
    const ids: string[] = [];
    for (let i = 0; i < MERGE_JOB_MIN_SOURCES; i++) {
      ids.push((await ok(client, 'store', { content: `The billing service retries failed card payments three times (note ${i}).` })).id);
    }
    const progress: Array<{ progress: number; total?: number }> = [];
    const m = await ok(
      client,
      'merge_concepts',
      { source_node_ids: ids, target_name: 'Billing retries', merge_strategy: 'keep_highest', rationale: 'ten copies of the same retry note' },
      (p) => progress.push(p),
    );
    assert.match(m.job_id, /^merge-/);
    assert.equal(m.sources.length, MERGE_JOB_MIN_SOURCES);
    assert.ok(progress.length >= 3, `progress reported: ${JSON.stringify(progress)}`);
    assert.equal(progress.at(-1)!.progress, progress.at(-1)!.total);
    const found = async () => {
      const r = await ok(client, 'search', { query_text: 'billing retries failed card payments', score_threshold: 0, limit: 50 });
      return (r.hits as Array<{ id: string }>).map((h) => h.id).filter((id) => id === m.merged.id || ids.includes(id));
    };
    assert.deepEqual(await found(), [m.merged.id], 'the merged node is embedded and the sources left the index');
    await ok(client, 'undo', { tx_id: m.tx_id });
    assert.deepEqual((await found()).sort(), [...ids].sort(), 'undo: the sources are back in every index, the merged node gone');
  });
});
