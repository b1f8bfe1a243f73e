import type { Logger } from '../log.js';
import type { Db } from './db.js';

/**
 * A table is analyzed once it has had this many modifications (rows inserted, updated or
 * deleted) since its last ANALYZE, plus as many as it held then: its size at least doubled, or
 * that much of it changed. Autovacuum's own base threshold is 50 too; its 10% scale would analyze
 * a growing table ~50 times on the way to 10k rows, doubling does it ~8 times.
 */
export const ANALYZE_BASE_ROWS = 50;
/** At most one look at the modification counts per this many ms while writes go on. */
export const CHECK_EVERY_MS = 1_000;

/**
 * PGlite runs no autovacuum, so the planner knows only what the last ANALYZE saw. The app
 * analyzes at start, often on an empty store, which leaves no column statistics: the planner
 * then takes `deleted_at is null` to keep 0.5% of a table, believes `nodes` has one live row, and
 * picks nested loops that scan `nodes` once per row of `nodes` and `edges` once per pair. With
 * 169 memories and 162 edges, one edge query of a dream's walk (`liveEdgesAround`) took ~3 s,
 * the REM phase 20-38 s, so trigger_dream's 20 s wait answered 'accepted'.
 *
 * This does what autovacuum's analyze would: after each announced transaction on `channel` (at
 * most once per `checkEveryMs`), it reads the tables' modifications since their last ANALYZE
 * (`pg_stat_user_tables`, flushed first: a backend sends its counts at most once a second) and
 * analyzes the tables past the threshold. An idle store costs nothing; a busy one two small
 * statements a second (~3 ms at 10k memories). Returns the stopper, which waits for a running check.
 */
export async function keepStatisticsFresh(db: Db, opts: { channel: string; logger: Logger; checkEveryMs?: number }): Promise<() => Promise<void>> {
  const { logger } = opts;
  const every = opts.checkEveryMs ?? CHECK_EVERY_MS;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let lastCheckAt = -Infinity;
  let again = false;
  let closed = false;

  const run = (work: () => Promise<void>) => {
    running = work()
      .catch((err: unknown) => logger.warn({ err }, 'analyze failed'))
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
    const due = await db.query<{ name: string }>(
      `select quote_ident(s.schemaname) || '.' || quote_ident(s.relname) as name
         from pg_stat_user_tables s join pg_class c on c.oid = s.relid
        where s.n_mod_since_analyze >= $1 + greatest(c.reltuples, 0)`,
      [ANALYZE_BASE_ROWS],
    );
    if (due.length > 0) await db.query(`analyze ${due.map((t) => t.name).join(', ')}`);
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
    await db.query('analyze');
  });
  return async () => {
    closed = true;
    clearTimeout(timer);
    await unlisten();
    await running;
  };
}
