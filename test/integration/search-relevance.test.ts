import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ulid } from 'ulid';
import { createEmbedder, type PoolEmbedder } from '../../src/embed/pool.js';
import { IndexSync } from '../../src/index/sync.js';
import { createVectorIndexes } from '../../src/index/usearch-host.js';
import type { VectorIndexes } from '../../src/index/vector-index.js';
import { createLogger } from '../../src/log.js';
import { SearchService } from '../../src/services/search.js';
import { writeEmbeddings } from '../../src/store/embeddings-repo.js';
import { pgliteHarness, type Harness } from '../helpers/stores.js';

/**
 * What a score means (calibration) and what the conversation around a hit adds, on the bundled
 * GloVe E1 plus BM25, as the server runs them.
 */
const logger = createLogger('silent');
const DEFAULT_THRESHOLD = 0.25;

const UNRELATED = [
  'Deploys to production go out on Tuesdays after the standup.',
  'Alice prefers green tea; Bob drinks his coffee black.',
  'The quarterly report is due at the end of the month.',
  'Our office moved to the third floor of the Berlin building.',
  'The cat knocked the plant off the windowsill again.',
];

// A conversation: the answer to "what did the vet say about Rex" is the turn after the question,
// which shares no word with it.
const QUESTION_TURN = 'Alice: What did the vet say about Rex yesterday?';
const ANSWER_TURN = 'Bob: Keep him indoors and give the pills twice a day until Thursday.';
const FILLER = [
  'Alice: The new bakery on the corner sells excellent sourdough.',
  'Bob: I finished painting the fence over the weekend.',
  'Alice: My sister starts her new job in Lisbon next month.',
  'Bob: The train was late again this morning.',
  'Alice: We should book the campsite before it fills up.',
  'Bob: I have been learning to play the cello.',
];

describe('search scores and conversation context (PGlite, bundled GloVe E1)', () => {
  let h: Harness;
  let embedder: PoolEmbedder;
  let indexes: VectorIndexes;
  let sync: IndexSync;
  let search: SearchService;
  const nidOf = new Map<string, number>();

  /** Stores rows in order (so nid order is storing order) and waits until every index has them. */
  async function store(project: string, contents: readonly string[]): Promise<void> {
    const rows = await h.db.query<{ nid: number }>(
      `insert into nodes (id, project_id, content, content_hash)
       select u.id, $1, u.content, md5(u.content) from unnest($2::text[], $3::text[]) with ordinality as u(id, content, ord)
        order by u.ord returning nid`,
      [project, contents.map(() => ulid()), contents],
    );
    rows.forEach((r, i) => nidOf.set(`${project}:${contents[i]}`, r.nid));
    const vectors = await embedder.embed(contents);
    for (const e of embedder.encoders()) {
      await writeEmbeddings(
        h.db,
        vectors.get(e.space)!.map((vector, i) => ({ nid: rows[i]!.nid, space: e.space, modelId: e.modelId, vector })),
      );
    }
    await sync.pull();
  }

  before(async () => {
    h = await pgliteHarness();
    embedder = await createEmbedder({ logger, threads: 1 });
    indexes = createVectorIndexes();
    const specs = embedder.encoders().map((e) => ({ space: e.space, dim: e.dim, modelId: e.modelId }));
    for (const spec of specs) await indexes.ensure(spec);
    sync = new IndexSync(h.db, indexes, specs, logger);
    await sync.start(0);
    search = new SearchService({ db: h.db, embedder, indexes });
    await store('office', UNRELATED);
    // The same conversation twice: as said, and with the answer far from its question.
    await store('adjacent', [...FILLER.slice(0, 3), QUESTION_TURN, ANSWER_TURN, ...FILLER.slice(3)]);
    await store('apart', [QUESTION_TURN, ...FILLER, ANSWER_TURN]);
  });

  after(async () => {
    await sync?.stop();
    await indexes?.close();
    await embedder?.close();
    await h?.cleanup();
  });

  test('a question nothing stored answers scores below the default threshold: "nothing relevant" is an answer', async () => {
    const all = await search.hybrid({ text: 'what is the office wifi password?', limit: 10, projectId: 'office', scoreThreshold: 0 });
    // Ranked all the same (one shares the word "office"), but none is worth showing.
    assert.equal(all.hits.length, UNRELATED.length);
    assert.ok(
      all.hits.every((x) => x.score < DEFAULT_THRESHOLD),
      all.hits.map((x) => `${x.score.toFixed(3)} ${x.node.content}`).join('\n'),
    );
    const kept = await search.hybrid({ text: 'what is the office wifi password?', limit: 10, projectId: 'office', scoreThreshold: DEFAULT_THRESHOLD });
    assert.deepEqual(kept.hits, []);
  });

  test('the memory that answers scores above the threshold, first, while the unrelated ones stay below', async () => {
    const answer = 'The office wifi password is on the card behind the reception desk.';
    await store('office', [answer]);
    const { hits } = await search.hybrid({ text: 'what is the office wifi password?', limit: 10, projectId: 'office', scoreThreshold: DEFAULT_THRESHOLD });
    assert.equal(hits[0]?.node.content, answer);
    assert.ok(hits[0].score >= 0.5, `score ${hits[0].score}`);
    assert.ok(hits.every((x) => x.node.content === answer || UNRELATED.includes(x.node.content)));
    assert.ok(hits.length < 1 + UNRELATED.length, 'the unrelated memories stay below the threshold');
  });

  test('the turn after a matching question ranks right behind it; stored far from it, it does not', async () => {
    const query = 'what did the vet say about Rex';
    const rank = async (project: string) => {
      const { hits } = await search.hybrid({ text: query, limit: 10, projectId: project });
      assert.equal(hits[0]?.node.nid, nidOf.get(`${project}:${QUESTION_TURN}`));
      return hits.findIndex((x) => x.node.nid === nidOf.get(`${project}:${ANSWER_TURN}`));
    };
    assert.equal(await rank('adjacent'), 1);
    assert.ok((await rank('apart')) > 1);
  });
});
