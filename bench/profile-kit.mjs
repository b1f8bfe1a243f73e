// Shared instrumentation of the profile-*.mjs scripts: wraps an open bench app's store, embedder
// and indexes so each call's awaited time is added to a stage named by what it was (the first
// words of a statement, the index op and space, the embedded spaces), plus PGlite's exclusive
// time per statement (its wasm runs synchronously on this thread). `on` gates the counting, so
// warm-ups stay out.
/* global performance, setTimeout */

export function instrument(app) {
  const stages = new Map();
  const state = { on: false };
  const add = (key, ms) => {
    if (!state.on) return;
    const s = stages.get(key) ?? { calls: 0, ms: 0 };
    s.calls++;
    s.ms += ms;
    stages.set(key, s);
  };
  const timed = (obj, name, key) => {
    // Older checkouts (A/B baselines) may lack a method: nothing to count there.
    if (typeof obj?.[name] !== 'function') return;
    const f = obj[name].bind(obj);
    obj[name] = async (...a) => {
      const t0 = performance.now();
      try {
        return await f(...a);
      } finally {
        add(typeof key === 'function' ? key(...a) : key, performance.now() - t0);
      }
    };
  };
  const sqlKey = (text) => 'sql ' + text.trim().replace(/\s+/g, ' ').split(' ').slice(0, 5).join(' ').slice(0, 56);
  timed(app.db, 'query', sqlKey);
  const transaction = app.db.transaction.bind(app.db);
  app.db.transaction = (fn) => {
    const t0 = performance.now();
    return transaction((tx) => (timed(tx, 'query', sqlKey), fn(tx))).finally(() => add('transaction (whole)', performance.now() - t0));
  };
  let current = 'other';
  const pg = app.db.pg;
  if (pg?.execProtocolRawSync) {
    const f = pg.execProtocolRawSync.bind(pg);
    pg.execProtocolRawSync = (...a) => {
      const t0 = performance.now();
      try {
        return f(...a);
      } finally {
        add(`pglite ${current}`, performance.now() - t0);
      }
    };
    const q = pg.query.bind(pg);
    pg.query = async (text, ...rest) => {
      current = sqlKey(text).slice(4);
      return q(text, ...rest);
    };
    // Named (prepared) statements go to the protocol directly: their cache lookup, made under
    // PGlite's lock just before the statement runs, names it.
    const cache = app.db.prepared?.statements;
    if (cache instanceof Map) {
      const get = cache.get.bind(cache);
      cache.get = (text) => ((current = sqlKey(text).slice(4)), get(text));
    }
    // Statements inside PGlite's own transactions name the running statement too.
    const t = pg.transaction.bind(pg);
    pg.transaction = (fn) =>
      t((tx) => {
        const tq = tx.query.bind(tx);
        tx.query = (text, ...rest) => ((current = sqlKey(text).slice(4)), tq(text, ...rest));
        return fn(tx);
      });
  }
  timed(app.embedder, 'embed', (_t, spaces) => `embed ${spaces?.join(',') ?? 'all'}`);
  timed(app.indexes, 'search', (space, _q, k, o) => `index.search ${space} k${k}${o?.among ? ' among' : ''}`);
  timed(app.indexes, 'termIdf', 'index.termIdf');
  timed(app.indexes, 'sizes', 'index.sizes');
  timed(
    app.indexes,
    'applyBatch',
    (b) => `index.applyBatch ${b.upserts.length > 1 ? 'spaces' : 'space'} of ${Math.max(0, ...b.upserts.map((u) => u.keys.length)) > 1 ? 'rows' : 'one row'}`,
  );
  return {
    state,
    /** Wraps one more async method of `obj` into a stage (key: a name, or a function of its arguments). */
    timed,
    /** Adds `ms` to a stage measured by the caller. */
    add,
    /** Stages by total awaited time, largest first: `[key, { calls, ms }]`. */
    stages: () => [...stages].sort((a, b) => b[1].ms - a[1].ms),
    /** Stages by awaited time per call, largest first, one line each. */
    report(calls) {
      return this.stages()
        .map(([k, s]) => `${(s.ms / calls).toFixed(3).padStart(8)} ms/call ${(s.calls / calls).toFixed(2).padStart(6)}×/call  ${k}`)
        .join('\n');
    },
  };
}

/** The p-th quantile of `ms`, rounded to 0.01. */
export function quantile(ms, p) {
  return Math.round([...ms].sort((a, b) => a - b)[Math.min(ms.length - 1, Math.floor(p * ms.length))] * 100) / 100;
}

/** Resolves once the stores that answered first have their vectors and the app's job queue is empty. */
export async function queueIdle(app) {
  await app.services.pendingVectors?.settled();
  for (;;) {
    const c = await app.queue.counts();
    if (c.waiting + c.active === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}
