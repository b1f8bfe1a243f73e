import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readLocomo } from '../../bench/locomo/data.js';
import { batches, conversationStore, type ConversationStore } from '../../bench/locomo/dream-store.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { packageRoot } from '../../src/paths.js';
import { tempDir } from '../helpers/cli.js';
import { inMemoryClient } from '../helpers/in-memory.js';

// The LoCoMo dev set is CC BY-NC and lives outside the repository: read at run time, never copied.
const LOCOMO = resolve(packageRoot(), '../shared/data/locomo-dev.json');
const QUESTIONS = 40;
const skip = existsSync(LOCOMO) ? false : `no LoCoMo dev file at ${LOCOMO} (../shared/data/locomo-dev.json): the dream test on a real conversation needs it`;

// One real conversation: turns in sessions joined by Temporal edges, its questions asked as an
// agent would (search, then query, for each). A dream then joins turns the questions kept
// returning together although the conversation put them two or more turns apart.
describe('dreams over one LoCoMo conversation', { skip }, () => {
  let app: App;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let client: Client;
  let conv: ConversationStore;
  /** Each question's search answer (memory ids), as the agent saw it before any dream. */
  const answers = new Map<string, string[]>();

  before(async () => {
    dir = await tempDir();
    app = await createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_TOOLSETS: 'all', CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('warn'));
    client = await inMemoryClient(app, { name: 'dreams-locomo', actor: 'locomo-dreamer' });
    const sample = (await readLocomo(LOCOMO)).samples[0]!;
    conv = conversationStore(sample);
    for (const records of [...batches(conv.memories), ...batches(conv.edges)]) await ok('import_records', { records, project_id: conv.projectId });
    for (const q of sample.questions.slice(0, QUESTIONS)) {
      const found = await ok('search', { query_text: q.text, project_id: conv.projectId, score_threshold: 0 });
      answers.set(
        q.text,
        found.hits.map((h: any) => h.id),
      );
      await ok('query', { query: q.text, project_id: conv.projectId });
    }
  });
  after(async () => {
    await client?.close();
    await app?.close();
    await dir?.remove();
  });

  async function ok(name: string, args: Record<string, unknown>): Promise<any> {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r.content).slice(0, 500)}`);
    return r.structuredContent;
  }

  test('a full dream strengthens co-retrieved turns and adds shortcuts between distant ones; undo removes them', async () => {
    const dream = await ok('trigger_dream', { phase: 'full', project_id: conv.projectId });
    assert.equal(dream.status, 'completed');
    const [nrem, rem] = dream.phases;
    assert.ok(nrem.counts.replayed > 0 && nrem.counts.retrievals_read >= QUESTIONS * 2, JSON.stringify(nrem));
    assert.ok(nrem.counts.strengthened > 0, 'adjacent turns the questions returned together got heavier');
    assert.ok(rem.counts.shortcuts_created > 0, JSON.stringify(rem));

    const { shortcuts } = await ok('get_amortized_shortcuts', { project_id: conv.projectId, limit: 200 });
    assert.equal(shortcuts.length, rem.counts.shortcuts_created);
    for (const s of shortcuts) {
      assert.ok(s.hops_replaced >= 2 && s.hops_replaced <= 3 && s.path.length === s.hops_replaced + 1);
      assert.ok(s.co_retrievals >= 2 && s.confidence > 0);
    }
    // The question that needed a walk along the conversation now reaches the other turn in one hop.
    const s = shortcuts[0];
    const one = await ok('get_neighborhood', { node_id: s.from.id, depth: 1, min_weight: 0, limit: 200 });
    assert.ok(one.neighbors.some((n: any) => n.id === s.to.id && n.edge_type === 'Shortcut'));

    // A real question returned both turns: its answer is now one hop from the turn it found.
    const asked = [...answers.entries()].filter(([, hits]) => hits.includes(s.from.id) && hits.includes(s.to.id));
    assert.ok(asked.length > 0, 'a question that returned both turns');

    await ok('undo', { tx_id: rem.tx_id });
    assert.equal((await ok('get_amortized_shortcuts', { project_id: conv.projectId })).shortcuts.length, 0);
    const again = await ok('get_neighborhood', { node_id: s.from.id, depth: 1, min_weight: 0, limit: 200 });
    assert.ok(!again.neighbors.some((n: any) => n.edge_type === 'Shortcut'));
    // Without the shortcut that question needs the walk the shortcut replaced again.
    assert.ok(!again.neighbors.some((n: any) => n.id === s.to.id), 'not one hop apart any more');
    const walk = await ok('get_neighborhood', { node_id: s.from.id, depth: s.hops_replaced, min_weight: 0, limit: 200 });
    assert.ok(
      walk.neighbors.some((n: any) => n.id === s.to.id),
      `${s.hops_replaced} hops reach it`,
    );
  });
});
