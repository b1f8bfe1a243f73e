import { parse, protocol, type PGlite } from '@electric-sql/pglite';

type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

interface Statement {
  name: string;
  /** Parameter type oids, for PGlite's serializers (what its own `query` looks up per call). */
  paramTypes: number[];
  /** The statement's row description (absent for statements that return no rows). */
  rowDescription: BackendMessage | undefined;
}

/**
 * Statements PGlite has already parsed and planned, reused by name.
 *
 * PGlite's `query` sends each statement unnamed: parse, analyze and plan on every call, in WASM
 * compiled by V8's baseline compiler (pglite.ts: Liftoff only). That was most of a point read's
 * cost: a node by nid 0.5 ms, of which 0.1 ms executing; the embed job's graph-neighbourhood read
 * 1.0 ms against 0.11 ms named (bench/results/2026-11-27-session6). A named statement is parsed
 * once, and Postgres' plan cache keeps a generic plan once five custom plans show it costs no
 * more (plan_cache_mode auto: what any client of a real Postgres with prepared statements gets).
 *
 * At most `max` statements are kept; the least recently used is closed. `forget()` drops them
 * all, for callers that change the schema (a cached plan whose result type changed would fail).
 */
export class PreparedStatements {
  private readonly statements = new Map<string, Statement>();
  private nextId = 0;

  constructor(
    private readonly pg: PGlite,
    private readonly max = 256,
  ) {}

  /** Runs `text` inside PGlite's statement lock; the caller holds its transaction lock (or is in a transaction). */
  async query<T>(text: string, params: readonly unknown[]): Promise<T[]> {
    // PGlite's own query says this (and errors.ts reads it as unavailable); its protocol calls would fail obscurely.
    if (this.pg.closed) throw new Error('PGlite is closed');
    return this.pg.runExclusive(async () => {
      const statement = this.statements.get(text) ?? (await this.prepare(text));
      // Most recently used last: eviction takes the first.
      this.statements.delete(text);
      this.statements.set(text, statement);
      const values = params.map((value, i) => {
        if (value === null || value === undefined) return null;
        const serialize = this.pg.serializers[statement.paramTypes[i]!];
        // PGlite's own fallback: the value's text form.
        return serialize ? serialize(value) : (value as { toString(): string }).toString();
      }) as Array<string | Uint8Array | null>;
      const messages: BackendMessage[] = statement.rowDescription ? [statement.rowDescription] : [];
      let unfit = false;
      try {
        messages.push(...(await this.send(protocol.serialize.bind({ statement: statement.name, values }))));
        messages.push(...(await this.send(protocol.serialize.execute({}))));
      } catch (err) {
        // A schema change that bypassed `forget()` (a stale plan, a parameter type that no longer
        // fits, a statement the server no longer has): the next call prepares the statement afresh.
        unfit = mayNotFitSchema(err);
        throw err;
      } finally {
        await this.send(protocol.serialize.sync());
        if (unfit) await this.drop(text, statement);
      }
      return (parse.parseResults(messages, this.pg.parsers)[0]?.rows ?? []) as T[];
    });
  }

  /** Drops every statement (their plans may name columns or tables that a schema change altered). */
  async forget(): Promise<void> {
    // Cleared under the statement lock: a statement prepared by a call that was waiting for the
    // lock would otherwise stay in the map after `deallocate all` removed it from the server.
    await this.pg.runExclusive(async () => {
      if (this.statements.size === 0) return;
      this.statements.clear();
      await this.send(protocol.serialize.query('deallocate all'));
    });
  }

  /** Forgets one statement and closes it on the server (best effort: it may already be gone). */
  private async drop(text: string, statement: Statement): Promise<void> {
    if (this.statements.get(text) === statement) this.statements.delete(text);
    try {
      await this.send(protocol.serialize.close({ type: 'S', name: statement.name }));
    } catch {
      // Closing a statement the server does not have is harmless.
    } finally {
      await this.send(protocol.serialize.sync());
    }
  }

  private async prepare(text: string): Promise<Statement> {
    const name = `cg_${this.nextId++}`;
    let described: BackendMessage[];
    try {
      await this.send(protocol.serialize.parse({ name, text }));
      described = await this.send(protocol.serialize.describe({ type: 'S', name }));
    } finally {
      await this.send(protocol.serialize.sync());
    }
    const parameters = described.find((m) => m.name === 'parameterDescription') as { dataTypeIDs?: number[] } | undefined;
    const statement = { name, paramTypes: parameters?.dataTypeIDs ?? [], rowDescription: described.find((m) => m.name === 'rowDescription') };
    if (this.statements.size >= this.max) {
      const [oldestText, oldest] = this.statements.entries().next().value!;
      this.statements.delete(oldestText);
      try {
        await this.send(protocol.serialize.close({ type: 'S', name: oldest.name }));
      } finally {
        await this.send(protocol.serialize.sync());
      }
    }
    return statement;
  }

  private send(message: Uint8Array): Promise<BackendMessage[]> {
    return this.pg.execProtocolStream(message, { syncToFs: false });
  }
}

/**
 * Errors after which a cached statement may no longer fit the schema: a cached plan whose result
 * columns a schema change altered (0A000 "cached plan"), a statement the server no longer has
 * (class 26), and class 42 (a column or table renamed or retyped under the statement's fixed
 * parameter types). Dropping it costs one prepare on the next call; keeping it could fail every
 * later call where the unnamed path would adapt. Outside a transaction the failed statement had
 * no effect (it ran in its own implicit transaction), so it is run once more, prepared afresh.
 */
export function mayNotFitSchema(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code !== 'string') return false;
  if (e.code === '0A000') return typeof e.message === 'string' && e.message.includes('cached plan');
  return e.code.startsWith('42') || e.code.startsWith('26');
}
