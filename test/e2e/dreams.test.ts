import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir, toolError } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';
import { ulid } from 'ulid';
import { SLOW } from '../helpers/slow.js';

const DAY = 86_400_000;
type Progress = { progress: number; total?: number; message?: string };

// Dreams learn from use: the retrieval log says which memories searches returned together, and a
// dream turns that into edges (Hebbian strengthening, shortcuts), summaries and decay, each phase
// one undoable transaction. The real app and MCP server in process (a sampling client needs it).
describe('dreams: Hebbian edges, amortized shortcuts, consolidation, abort, pruning', () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  const clients: Client[] = [];
  let client: Client;

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
    client = await connect();
  });
  after(async () => {
    for (const c of clients) await c.close();
    await app.close();
    await dir.remove();
  });

  async function connect(opts: { sampling?: (req: CreateMessageRequest) => string } = {}): Promise<Client> {
    const c = await inMemoryClient(app, { name: 'dreams-test', actor: `dreamer-${clients.length}`, sampling: opts.sampling });
    clients.push(c);
    return c;
  }

  async function ok(name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void, via = client): Promise<any> {
    const r = (await via.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined)) as CallToolResult;
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  }

  const neighbours = async (id: string, depth = 1) => (await ok('get_neighborhood', { node_id: id, depth, min_weight: 0 })).neighbors as any[];
  const store = async (content: string, project_id: string) => (await ok('store', { content, project_id })).id as string;

  test('trigger_dream rejects an unknown phase with the allowed values (seed 001 §3.7)', async () => {
    const r = (await client.callTool({ name: 'trigger_dream', arguments: { phase: 'daydream' } })) as CallToolResult;
    const err = toolError(r)!;
    assert.equal(err.code, 'INVALID_PARAMS');
    assert.equal((err as any).rpc_code, -32002);
    assert.deepEqual(err.details.issues[0].allowed, ['nrem', 'rem', 'full']);
    assert.equal((await ok('get_dream_status', {})).recent.length, 0, 'nothing was started');
  });

  // A chain the graph knows: payment retries → billing config → retry file. Searches keep
  // returning the first and the last together, two hops apart.
  let a = '';
  let b = '';
  let c = '';
  test('REM: memories two hops apart that queries returned together get a Shortcut edge, streamed as phases, undone by undo', async () => {
    a = await store('The payment service retries failed card charges three times before giving up.', 'pay');
    b = await store('How many times billing tries again is set in the billing config.', 'pay');
    c = await store('The retry file payments/retry.yaml in the ops repository holds the payment retry count.', 'pay');
    await store('The office plants are watered every Monday morning.', 'pay');
    await ok('relate', { subject: a, predicate: 'configured_by', object: b, weight: 0.5, project_id: 'pay' });
    await ok('relate', { subject: b, predicate: 'stored_in', object: c, weight: 0.5, project_id: 'pay' });
    assert.ok(!(await neighbours(a)).some((n) => n.id === c), 'before the dream c is not a neighbour of a');
    assert.ok(
      (await neighbours(a, 2)).some((n) => n.id === c && n.depth === 2),
      'c is two hops from a',
    );

    for (const q of ['payment retry count', 'where is the payment retry count for card charges set', 'payment retries repository file']) {
      const found = await ok('search', { query_text: q, project_id: 'pay', score_threshold: 0 });
      const top = found.hits.slice(0, 5).map((h: any) => h.id);
      assert.ok(top.includes(a) && top.includes(c), `${q}: a and c among the first hits`);
    }

    const progress: Progress[] = [];
    const dream = await ok('trigger_dream', { phase: 'full', project_id: 'pay' }, (p) => progress.push(p));
    assert.equal(dream.status, 'completed');
    assert.deepEqual(
      dream.phases.map((p: any) => p.phase),
      ['nrem', 'rem'],
    );
    const phasesSeen = new Set(progress.map((p) => /^(nrem|rem):/.exec(p.message ?? '')?.[1]).filter(Boolean));
    assert.deepEqual([...phasesSeen], ['nrem', 'rem'], `phase events streamed: ${JSON.stringify(progress.map((p) => p.message))}`);
    assert.ok(
      progress.every((p, i) => i === 0 || p.progress > progress[i - 1]!.progress),
      'progress only grows',
    );

    const rem = dream.phases[1];
    assert.ok(rem.counts.shortcuts_created >= 1, JSON.stringify(rem));
    const shortcut = (await neighbours(a)).find((n) => n.id === c);
    assert.ok(shortcut, 'after the dream, c is one hop from a');
    assert.equal(shortcut.edge_type, 'Shortcut');
    assert.equal(shortcut.direction, 'undirected');
    assert.equal(shortcut.method, 'dream_shortcut');

    const listed = (await ok('get_amortized_shortcuts', { project_id: 'pay' })).shortcuts.find((s: any) => s.edge_id === shortcut.edge_id);
    assert.ok(listed);
    assert.equal(listed.hops_replaced, 2);
    assert.deepEqual(
      listed.path.map((n: any) => n.id),
      [a, b, c],
    );
    assert.ok(listed.co_retrievals >= 2);
    assert.ok(listed.confidence > 0 && listed.confidence <= 1);
    assert.equal(listed.confidence, shortcut.confidence);

    const status = await ok('get_dream_status', { dream_id: dream.dream_id });
    assert.equal(status.recent[0].status, 'completed');
    assert.deepEqual(status.recent[0].tx_ids, dream.phases.map((p: any) => p.tx_id).filter(Boolean));

    await ok('undo', { tx_id: rem.tx_id });
    assert.ok(!(await neighbours(a)).some((n) => n.id === c), 'undo of the REM transaction removes the shortcut');
    assert.equal((await ok('get_amortized_shortcuts', { project_id: 'pay' })).shortcuts.length, 0);
  });

  test('NREM: an edge between memories retrieved together gets heavier (Hebbian), and the same evidence is not counted twice', async () => {
    const before = (await neighbours(a)).find((n) => n.id === b && n.edge_type === 'Relational');
    const found = await ok('search', { query_text: 'how many times are payment card charges retried per billing config', project_id: 'pay', score_threshold: 0 });
    assert.ok(found.hits.slice(0, 5).some((h: any) => h.id === a) && found.hits.slice(0, 5).some((h: any) => h.id === b));
    const dream = await ok('trigger_dream', { phase: 'nrem', project_id: 'pay' });
    assert.ok(dream.phases[0].counts.strengthened >= 1, JSON.stringify(dream.phases[0]));
    const after = (await neighbours(a)).find((n) => n.id === b && n.edge_type === 'Relational');
    assert.ok(after.weight > before.weight, `weight ${before.weight} → ${after.weight}`);

    const again = await ok('trigger_dream', { phase: 'nrem', project_id: 'pay' });
    assert.equal(again.phases[0].counts.strengthened, 0, 'no new co-retrieval, no change');
    assert.equal((await neighbours(a)).find((n) => n.id === b && n.edge_type === 'Relational').weight, after.weight);

    await ok('undo', { tx_id: dream.phases[0].tx_id });
    assert.equal((await neighbours(a)).find((n) => n.id === b && n.edge_type === 'Relational').weight, before.weight, 'undo restores the weight');
  });

  test('NREM: automatic edges unused for unused_days lose weight; edges made by hand do not', async () => {
    const [x, y, z] = [ulid(), ulid(), ulid()];
    const longAgo = new Date(Date.now() - 100 * DAY).toISOString();
    const memory = (id: string, content: string) => ({ type: 'memory', id, content, created_at: longAgo });
    await ok('import_records', {
      project_id: 'decay',
      records: [
        memory(x, 'Deploys happen on Tuesdays after the standup.'),
        memory(y, 'Deploys on Tuesdays need a second reviewer.'),
        memory(z, 'The standup starts at nine.'),
        { type: 'edge', src: x, dst: y, edge_type: 'Temporal', predicate: 'next', weight: 0.9, metadata: { method: 'sequence' }, created_at: longAgo },
        { type: 'edge', src: x, dst: z, predicate: 'see_also', weight: 0.8, created_at: longAgo },
      ],
    });
    const dream = await ok('trigger_dream', { phase: 'nrem', project_id: 'decay', unused_days: 30 });
    assert.equal(dream.phases[0].counts.decayed, 1, JSON.stringify(dream.phases[0]));
    const now = await neighbours(x);
    const auto = now.find((n) => n.id === y);
    // 100 idle days at a 90-day half-life.
    assert.ok(Math.abs(auto.weight - 0.9 * 2 ** (-100 / 90)) < 0.01, `0.9 → ${auto.weight}`);
    assert.equal(now.find((n) => n.id === z).weight, 0.8, 'an edge made by hand keeps its weight');
    const again = await ok('trigger_dream', { phase: 'nrem', project_id: 'decay', unused_days: 30 });
    assert.equal(again.phases[0].counts.decayed, 0, 'decay counts idle time once');
  });

  test('trigger_consolidation writes a summary of near-duplicates with provenance edges; a second run adds nothing', async () => {
    const dup = [
      'The nightly backup of the orders database runs at 02:00 UTC.',
      'The nightly backup of the orders database runs at 02:00 UTC every day.',
      'Every night the orders database backup runs at 02:00 UTC.',
    ];
    const ids = [];
    for (const text of dup) ids.push(await store(text, 'ops'));
    const other = await store('Lunch is served in the canteen from noon.', 'ops');
    const run = await ok('trigger_consolidation', { project_id: 'ops' });
    assert.equal(run.status, 'completed');
    assert.equal(run.phases[0].counts.summaries_created, 1, JSON.stringify(run.phases[0]));
    assert.equal(run.phases[0].counts.provenance_edges, 3);
    const around = await neighbours(ids[0]!);
    const summaryEdge = around.find((n) => n.predicate === 'summarizes');
    assert.ok(summaryEdge && summaryEdge.kind === 'summary' && summaryEdge.direction === 'incoming');
    const summarized = (await neighbours(summaryEdge.id)).filter((n) => n.predicate === 'summarizes').map((n) => n.id);
    assert.deepEqual(summarized.sort(), [...ids].sort());
    assert.ok(!summarized.includes(other));
    assert.equal((await ok('trigger_consolidation', { project_id: 'ops' })).phases[0].counts.summaries_created, 0);

    // With a client that offers sampling, its model writes the summary.
    const sampler = await connect({ sampling: () => 'Orders DB backup: nightly at 02:00 UTC.' });
    for (const text of dup) await ok('store', { content: text.replace('orders', 'invoices'), project_id: 'ops2' }, undefined, sampler);
    const sampled = await ok('trigger_consolidation', { project_id: 'ops2' }, undefined, sampler);
    assert.equal(sampled.sampled_summaries, 1);
    const hits = await ok('search', { query_text: 'Orders DB backup nightly', project_id: 'ops2', score_threshold: 0 }, undefined, sampler);
    assert.ok(
      hits.hits.some((h: any) => h.text.includes('Orders DB backup: nightly at 02:00 UTC.')),
      JSON.stringify(hits.hits),
    );
  });

  test('get_pruning_candidates ranks an old, unread, redundant memory above a fresh, read one, and deletes nothing', async () => {
    const old = ulid();
    await ok('import_records', {
      project_id: 'prune',
      records: [{ type: 'memory', id: old, content: 'Invoices are archived to cold storage after ninety days.', created_at: new Date(Date.now() - 200 * DAY).toISOString() }],
    });
    await store('After ninety days invoices are archived to cold storage.', 'prune');
    const fresh = await store('The security audit is scheduled for the first week of March.', 'prune');
    for (let i = 0; i < 3; i++) await ok('query', { id: fresh });
    const r = await ok('get_pruning_candidates', { project_id: 'prune' });
    const rank = (id: string) => r.candidates.findIndex((x: any) => x.node.id === id);
    assert.equal(rank(old), 0, JSON.stringify(r.candidates.map((x: any) => [x.node.snippet, x.score])));
    assert.ok(rank(fresh) > 0);
    const o = r.candidates[rank(old)];
    const f = r.candidates[rank(fresh)];
    assert.ok(o.score > f.score);
    assert.equal(o.access_count, 0);
    assert.ok(o.redundancy > f.redundancy && o.access_count < f.access_count && o.idle_rank > f.idle_rank && o.idle_days > 199);
    assert.equal(o.redundant_with.kind, 'near_duplicate');
    assert.ok(JSON.stringify(await ok('query', { id: old })).includes(old), 'still there');
  });

  test('abort_dream mid-phase: the phase rolls back whole and the run says so', { skip: SLOW }, async () => {
    // Enough memories and retrievals that NREM is still replaying when the abort lands.
    const ids = Array.from({ length: 150 }, () => ulid());
    await ok('import_records', {
      project_id: 'big',
      records: [
        ...ids.map((id, i) => ({ type: 'memory', id, content: `Ticket ${i}: the customer in region ${i % 7} reported slow checkout on day ${i % 11}.` })),
        ...ids.slice(1).map((id, i) => ({ type: 'edge', src: ids[i], dst: id, predicate: 'follows', weight: 0.5, metadata: { method: 'sequence' } })),
      ],
    });
    for (let i = 0; i < 12; i++) await ok('search', { query_text: `slow checkout region ${i % 7} day ${i % 11}`, project_id: 'big', score_threshold: 0 });
    const txBefore = (await ok('history', { limit: 1 })).items[0].tx_id;

    let aborted: Promise<any> | null = null;
    const dream = await ok('trigger_dream', { phase: 'full', project_id: 'big', min_similarity: 0.5 }, (p) => {
      if (!aborted && /^nrem:/.test(p.message ?? '')) aborted = ok('abort_dream', { project_id: 'big' });
    });
    const abort = await aborted!;
    assert.equal(abort.requested, true);
    assert.equal(dream.status, 'aborted');
    assert.equal(dream.aborted_in, 'nrem');
    assert.deepEqual(dream.phases, [], 'nothing committed');
    assert.equal((await ok('history', { limit: 1 })).items[0].tx_id, txBefore, 'no dream transaction');
    const status = (await ok('get_dream_status', { dream_id: dream.dream_id })).recent[0];
    assert.equal(status.status, 'aborted');
    assert.ok(status.abort_requested_at);
    assert.match(status.error, /rolled back/);
    // Consistent afterwards: the next dream runs normally.
    assert.equal((await ok('trigger_dream', { phase: 'rem', project_id: 'big' })).status, 'completed');
  });
});
