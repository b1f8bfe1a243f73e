import type { SpaceId } from '../embed/types.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { EMBEDDINGS_CHANNEL, notificationOrigin, onVectorsWritten, readFeed, type FeedRow, type WrittenVector } from '../store/embeddings-repo.js';
import { fromBytes } from '../store/vector-bytes.js';
import { resolveSpec, rowFits, type ResolvedSpec } from './space-index.js';
import type { SpaceIndexSpec, VectorIndexes } from './vector-index.js';

const BATCH = 2_000;
/** Vectors written by this process kept for the replica at most (beyond, they are read back from the feed). */
const MAX_PRIMED = 100_000;
// LISTEN can miss a notification across a reconnect; a slow poll catches up regardless.
const POLL_MS = 1_000;

/**
 * Keeps this process's index replicas current from the embeddings feed. Every front end runs
 * one; the feed is the single source of truth, so replicas in N processes converge.
 */
export class IndexSync {
  private lastSeq = 0;
  private pulling: Promise<number> | null = null;
  private next: Promise<number> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private readonly specs: Map<string, ResolvedSpec>;
  /**
   * Vectors this process wrote, by feed position, not yet applied. A run of them right after the
   * cursor is applied without reading the feed (a position is taken once, and a later change to
   * the row takes a new one); elsewhere the feed read skips their bytes.
   */
  private readonly primed = new Map<number, WrittenVector>();
  private unprime: (() => void) | null = null;
  /**
   * The feed may hold what `primed` does not (another process's or a retraction's write, a
   * vector past MAX_PRIMED): the next run reads it. Runs for this process's own writes alone
   * take them from `primed` without a statement.
   */
  private feedDirty = true;
  /** Until startWhen's position is known and the replica started: pulls and reaches wait for it. */
  private gate: Promise<unknown> | null = null;

  constructor(
    private readonly db: Db,
    private readonly indexes: VectorIndexes,
    specs: readonly SpaceIndexSpec[],
    private readonly logger: Logger,
    /** The catch-up poll's interval; 0 follows notifications alone (a test that counts feed reads). */
    private readonly pollMs = POLL_MS,
  ) {
    this.specs = new Map(specs.map((s) => [s.space, resolveSpec(s)]));
  }

  /** Whether the replica waits for its snapshot (startWhen) and has not started following the feed. */
  get loading(): boolean {
    return this.gate !== null;
  }

  get position(): number {
    return this.lastSeq;
  }

  /**
   * Starts once `fromSeq` is known (a snapshot still loading); until then the replica is not
   * current, and `pull` and `reach` wait for the start instead of replaying the feed from 0.
   */
  startWhen(fromSeq: Promise<number>): Promise<void> {
    const started = fromSeq.then((seq) => this.start(seq));
    this.gate = started.catch(() => undefined).finally(() => (this.gate = null));
    return started;
  }

  /** Starts from a snapshot position (0 replays the whole feed) and follows the feed. */
  async start(fromSeq: number): Promise<void> {
    this.lastSeq = fromSeq;
    this.unprime = onVectorsWritten(this.db, (rows) => {
      for (const r of rows) {
        if (r.feedSeq <= this.lastSeq) continue;
        if (this.primed.size < MAX_PRIMED) this.primed.set(r.feedSeq, r);
        else this.feedDirty = true;
      }
      // This process's own write: its notification is skipped (below), so it is applied from here.
      void this.run().catch(() => {});
    });
    this.feedDirty = true;
    await this.run();
    const own = notificationOrigin(this.db);
    this.unlisten = await this.db.listen(EMBEDDINGS_CHANNEL, (origin) => {
      if (origin !== own) void this.pull().catch(() => {});
    });
    if (this.pollMs > 0) {
      this.timer = setInterval(() => void this.pull().catch(() => {}), this.pollMs);
      this.timer.unref();
    }
  }

  /**
   * Applies everything in the feed up to now. Concurrent callers share one run, and a call that
   * arrives during a run causes one more run, so a caller always sees writes committed before it called.
   */
  pull(): Promise<number> {
    if (this.gate) return this.gate.then(() => this.pull());
    this.feedDirty = true;
    return this.run();
  }

  /**
   * Resolves once the replica has applied the feed up to `seq` (a write's position, from
   * `writeEmbeddings`). A write of this process is taken from memory without reading the feed;
   * any other is read from it.
   */
  async reach(seq: number): Promise<void> {
    if (this.gate) await this.gate;
    for (let attempt = 0; attempt < 3 && this.lastSeq < seq; attempt++) {
      const pending = this.primed.has(seq) && !this.feedDirty;
      await (pending ? this.run() : this.pull());
    }
    // A position that never shows (rewritten since, by a write not yet committed) waits no longer than a full read.
    if (this.lastSeq < seq) await this.pull();
  }

  private run(): Promise<number> {
    if (!this.pulling) {
      this.pulling = this.drain().finally(() => {
        this.pulling = null;
      });
      return this.pulling;
    }
    // A run is under way and may have read the feed before this caller's write: queue exactly
    // one follow-up run that every caller arriving now shares.
    this.next ??= this.pulling
      .catch(() => 0)
      .then(() => {
        this.next = null;
        return this.run();
      });
    return this.next;
  }

  /**
   * Reads one batch ahead of the index thread: batch k+1 is read (or taken from `primed`) while
   * the thread applies batch k, so neither waits for the other. A bulk import's vectors reach
   * the indexes as fast as the thread adds them instead of a feed read apart.
   */
  private async drain(): Promise<number> {
    let applied = 0;
    let readSeq = this.lastSeq;
    let applying: Promise<void> | null = null;
    let reading = false;
    try {
      for (;;) {
        const local = this.primedRun(readSeq);
        if (!local && !reading) {
          // Nothing of this process's right after the cursor: read the feed when it may hold
          // more, or when a vector of ours waits behind a position that is not (a gap).
          if (!this.feedDirty && !this.primedAfter(readSeq)) break;
          this.feedDirty = false;
          reading = true;
        }
        const rows =
          local ??
          (await readFeed(
            this.db,
            readSeq,
            BATCH,
            [...this.primed.keys()].filter((seq) => seq > readSeq),
          ));
        if (rows.length === 0) break;
        const upTo = rows[rows.length - 1]!.feed_seq;
        readSeq = upTo;
        if (applying) await applying;
        applying = this.apply(rows).then((n) => {
          applied += n;
          this.advance(upTo);
        });
        if (!local && rows.length < BATCH) break;
      }
      // Awaited inside the try: a failed last apply leaves rows read but not applied, which the
      // next run must read again.
      if (applying) await applying;
    } catch (err) {
      // What this run did not read or apply is read by the next one.
      this.feedDirty = true;
      if (applying) await applying.catch(() => undefined);
      throw err;
    }
    return applied;
  }

  /** The vectors this process wrote at the positions right after `after`, as feed rows; null when the next position is not one of them. */
  private primedRun(after: number): FeedRow[] | null {
    const rows: FeedRow[] = [];
    for (let seq = after + 1; rows.length < BATCH; seq++) {
      const w = this.primed.get(seq);
      if (!w) break;
      rows.push({ node_nid: w.nid, space: w.space, model_id: w.modelId, dim: w.vector.length, vector: null, feed_seq: seq, removed: false });
    }
    return rows.length > 0 ? rows : null;
  }

  private primedAfter(seq: number): boolean {
    for (const key of this.primed.keys()) if (key > seq) return true;
    return false;
  }

  /** Everything up to `seq` is applied: positions at or before it were applied or superseded by a later write. */
  private advance(seq: number): void {
    this.lastSeq = seq;
    for (const key of this.primed.keys()) if (key <= seq) this.primed.delete(key);
  }

  private async apply(rows: Awaited<ReturnType<typeof readFeed>>): Promise<number> {
    const upserts = new Map<string, { keys: number[]; vectors: Float32Array[] }>();
    const removals = new Map<string, number[]>();
    for (const row of rows) {
      const spec = this.specs.get(row.space);
      if (!spec) continue;
      // A vector from another model (or a removal) takes the key out of this model's index.
      // A sparse row's dim is its own (variable) length.
      const vector = row.vector ? fromBytes(row.vector, row.dim) : row.removed === false ? this.primed.get(row.feed_seq)?.vector : undefined;
      if (!vector || row.model_id !== spec.modelId || !rowFits(spec, row.dim)) {
        push(removals, row.space, row.node_nid);
        continue;
      }
      const batch = upserts.get(row.space) ?? { keys: [], vectors: [] };
      batch.keys.push(row.node_nid);
      batch.vectors.push(vector);
      upserts.set(row.space, batch);
    }
    await this.indexes.applyBatch({
      removals: [...removals].map(([space, keys]) => ({ space: space as SpaceId, keys })),
      upserts: [...upserts].map(([space, b]) => ({ space: space as SpaceId, keys: b.keys, vectors: b.vectors })),
    });
    return rows.length;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unprime?.();
    this.unprime = null;
    await this.unlisten?.().catch((err) => this.logger.debug({ err }, 'unlisten failed'));
    this.unlisten = null;
    await this.pulling?.catch(() => {});
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
