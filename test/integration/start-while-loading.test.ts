import assert from 'node:assert/strict';
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/cli.js';

// `serve` and `stdio` answer while the index snapshot loads (createApp's answerWhileIndexesLoad).
// What a user relies on: a search made at once still finds everything stored before the start,
// including what a crash left newer than the snapshot, and /healthz says the indexes are loading
// rather than timing out on them.

const open = (path: string, early = false) =>
  createApp(loadConfig({ CONTEXT_GRAPH_DATA_DIR: path, CONTEXT_GRAPH_AUTO_EDGES: 'off' }), createLogger('silent'), { answerWhileIndexesLoad: early });

async function storeAll(app: App, contents: readonly string[]): Promise<void> {
  for (const content of contents) await app.services.memory.store({ content, project_id: 'start', memory_type: 'semantic' });
  await app.services.pendingVectors.settled();
}

const found = async (app: App, text: string) => (await app.services.search.hybrid({ text, limit: 3, projectId: 'start' })).hits.map((h) => h.node.content);

test('a search made as soon as the app answers finds memories from the snapshot and from the feed after it', async () => {
  const dir = await tempDir('cg-start-while-loading-');
  const staleSnapshot = `${dir.path}-index-copy`;
  try {
    const first = await open(dir.path);
    await storeAll(first, ['The quokka colony nests near the lighthouse', 'Backups rotate every Sunday night']);
    await first.close();
    // The snapshot as it was after the first session; a crash would leave one like it behind.
    await cp(join(dir.path, 'index'), staleSnapshot, { recursive: true });
    const second = await open(dir.path);
    await storeAll(second, ['The narwhal survey moved to Thursday']);
    await second.close();
    await rm(join(dir.path, 'index'), { recursive: true, force: true });
    await cp(staleSnapshot, join(dir.path, 'index'), { recursive: true });

    const app = await open(dir.path, true);
    try {
      const [health, narwhal, quokka] = await Promise.all([app.health(), found(app, 'narwhal survey'), found(app, 'quokka colony')]);
      assert.equal(narwhal[0], 'The narwhal survey moved to Thursday', 'written after the snapshot: found once the feed is replayed');
      assert.equal(quokka[0], 'The quokka colony nests near the lighthouse');
      // Asked at once, health either saw the load under way or the indexes already current.
      if (health.problems.some((p) => /loading their snapshot/.test(p))) assert.equal(health.status, 'degraded');
      else assert.equal(health.index.feed_position > 0, true);
      assert.equal(app.indexSync.loading, false);
      assert.equal(
        (await app.health()).problems.some((p) => /loading/.test(p)),
        false,
      );
    } finally {
      await app.close();
    }
    // Reopened after a clean close the snapshot covers the feed: searches only wait for their spaces.
    const again = await open(dir.path, true);
    try {
      assert.equal((await found(again, 'narwhal survey'))[0], 'The narwhal survey moved to Thursday');
    } finally {
      await again.close();
    }
  } finally {
    await rm(staleSnapshot, { recursive: true, force: true });
    await dir.remove();
  }
});
