import type { Logger } from '../log.js';
import type { Db } from './db.js';

/**
 * A table is analyzed once it has had this many modifications (rows inserted, updated or
 * deleted) since its last ANALYZE, plus as many as it held then: its size at least doubled, or
 * that much of it changed. Autovacuum's own base threshold is 50 too; its 10% scale would analyze
 * a growing table ~50 times on the way to 10k rows, doubling does it ~8 times.
 */
export const ANALYZE_BASE_ROWS = 50;
/**
 * A table is vacuumed once this many of its row versions are dead, plus a fifth of the rows it
 * holds: autovacuum's own thresholds (autovacuum_vacuum_threshold, autovacuum_vacuum_scale_factor).
 */
export const VACUUM_BASE_ROWS = 50;
export const VACUUM_SCALE = 0.2;
/** At most one look at the modification counts per this many ms while writes go on. */
export const CHECK_EVERY_MS = 1_000;

/** What the app holds of the keeper: `nudge` asks for a check after writes that announce nothing. */
export interface TableMaintenance {
  nudge(): void;
  close(): Promise<void>;
}

/**
 * PGlite runs no autovacuum, so the planner knows only what the last ANALYZE saw, and no dead
 * row version is ever reclaimed. The app analyzed at start, often on an empty store, which left
 * no column statistics: the planner then takes `deleted_at is null` to keep 0.5% of a table,
 * believes `nodes` has one live row, and picks nested loops that scan `nodes` once per row of
 * `nodes` and `edges` once per pair. With 169 memories and 162 edges, one edge query of a dream's
 * walk (`liveEdgesAround`) took ~3 s, the REM phase 20-38 s, so trigger_dream's 20 s wait
 * answered 'accepted'. And a table whose rows are deleted or updated grows for ever: space freed
 * in a page is found again only through the free space map, which VACUUM keeps. The retrieval
 * log, pruned to its newest 20,000 rows, still grew by ~530 bytes per search (32 MB after 60,000).
 *
 * This does what autovacuum would: after each announced transaction on `channel`, or a `nudge`
 * (at most once per `checkEveryMs`), it reads the tables' modifications since their last ANALYZE
 * and their dead row versions (`pg_stat_user_tables`, flushed first: a backend sends its counts
 * at most once a second), analyzes the tables past the analyze threshold and vacuums those past
 * the vacuum one. An idle store costs nothing; a busy one two small statements a second (~3 ms
 * at 10k memories). `close` waits for a running check.
 */
export async function keepTablesMaintained(db: Db, opts: { channel: string; logger: Logger; checkEveryMs?: number }): Promise<TableMaintenance> {
  const { logger } = opts;
  const every = opts.checkEveryMs ?? CHECK_EVERY_MS;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let lastCheckAt = -Infinity;
  let again = false;
  let closed = false;

  const run = (work: () => Promise<void>) => {
    running = work()
      .catch((err: unknown) => logger.warn({ err }, 'table maintenance failed'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          schedule();
        }
      });
  };

  const check = async () => {
    lastCheckAt = performance.now();
    await db.query('select pg_stat_force_next_flush()');
    const due = await db.query<{ name: string; to_analyze: boolean; to_vacuum: boolean }>(
      `select * from (
         select quote_ident(s.schemaname) || '.' || quote_ident(s.relname) as name,
                s.n_mod_since_analyze >= $1 + greatest(c.reltuples, 0) as to_analyze,
                s.n_dead_tup >= $2 + $3 * greatest(c.reltuples, 0) as to_vacuum
           from pg_stat_user_tables s join pg_class c on c.oid = s.relid
       ) t where to_analyze or to_vacuum`,
      [ANALYZE_BASE_ROWS, VACUUM_BASE_ROWS, VACUUM_SCALE],
    );
    const analyze = due.filter((t) => t.to_analyze).map((t) => t.name);
    const vacuum = due.filter((t) => t.to_vacuum).map((t) => t.name);
    if (analyze.length > 0) await db.query(`analyze ${analyze.join(', ')}`);
    if (vacuum.length > 0) await db.query(`vacuum ${vacuum.join(', ')}`);
  };

  function schedule(): void {
    if (closed || timer) return;
    if (running) {
      again = true;
      return;
    }
    const wait = lastCheckAt + every - performance.now();
    // At once when the last check is old enough: its statements queue right behind the commit
    // that announced itself, ahead of the reads that follow a burst of writes.
    if (wait <= 0) return run(check);
    timer = setTimeout(() => {
      timer = undefined;
      schedule();
    }, wait);
    timer.unref();
  }

  const unlisten = await db.listen(opts.channel, schedule);
  run(async () => {
    // Only the tables never analyzed (a new store's): PGlite keeps the statistics of the last
    // ANALYZE (pg_statistic, pg_class.reltuples) across restarts but not the modification
    // counts, and analyzing everything held the one connection 1.8 s at 100k memories while
    // the first calls waited.
    const fresh = await db.query<{ name: string }>(
      `select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as name
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind = 'r' and c.reltuples < 0 and n.nspname = current_schema()`,
    );
    if (fresh.length > 0) await db.query(`analyze ${fresh.map((t) => t.name).join(', ')}`);
  });
  return {
    nudge: schedule,
    async close() {
      closed = true;
      clearTimeout(timer);
      await unlisten();
      await running;
    },
  };
}
