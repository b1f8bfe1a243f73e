import { EventEmitter } from 'node:events';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { changesAfter, latestTxId, type LoggedEntity } from '../store/tx-log.js';
import { TX_CHANNEL } from './writes.js';

export interface ChangedEntity {
  entity: LoggedEntity;
  id: string;
  /** upsert: the entity exists after the transaction; delete: it no longer does (or is tombstoned). */
  change_type: 'upsert' | 'delete';
  project_id: string | null;
  kind: string | null;
}

export interface TxEvent {
  tx_id: number;
  op: string;
  changes: ChangedEntity[];
}

/**
 * Turns committed transactions (announced on TX_CHANNEL, from this process or any other front
 * end on the same database) into TxEvents for subscriptions. Events are emitted in tx_id order;
 * a slow poll covers notifications lost across a reconnect.
 */
export class ChangeFeed extends EventEmitter<{ tx: [TxEvent] }> {
  private lastTx = 0;
  private running: Promise<void> | null = null;
  private pending = false;
  private unlisten: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private catchingUp: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {
    super();
  }

  async start(): Promise<void> {
    this.lastTx = await this.latest();
    // Reading the log costs a query per transaction; with nobody listening, skip it and start
    // from the newest transaction when the first listener arrives.
    (this as EventEmitter).on('newListener', (event: string | symbol) => {
      if (event === 'tx' && this.listenerCount('tx') === 0) {
        this.catchingUp = this.latest().then((max) => {
          this.lastTx = Math.max(this.lastTx, max);
        });
      }
    });
    this.unlisten = await this.db.listen(TX_CHANNEL, () => this.poke());
    this.timer = setInterval(() => this.poke(), 2_000);
    this.timer.unref();
  }

  /** Reads transactions newer than the last one seen; safe to call any time. */
  poke(): void {
    if (this.listenerCount('tx') === 0) return;
    if (this.running) {
      this.pending = true;
      return;
    }
    this.running = this.drain()
      .catch((err) => this.logger.warn({ err }, 'change feed read failed'))
      .finally(() => {
        this.running = null;
        if (this.pending) {
          this.pending = false;
          this.poke();
        }
      });
  }

  /** Resolves once every transaction committed before the call has been emitted. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    this.poke();
    while (this.running) await this.running;
  }

  private async latest(): Promise<number> {
    return latestTxId(this.db);
  }

  private async drain(): Promise<void> {
    await this.catchingUp;
    for (;;) {
      const rows = await changesAfter(this.db, this.lastTx, 200);
      if (rows.length === 0) return;
      let current: TxEvent | null = null;
      for (const r of rows) {
        if (!current || current.tx_id !== r.tx_id) {
          if (current) this.emitTx(current);
          current = { tx_id: r.tx_id, op: r.op, changes: [] };
        }
        current.changes.push({ entity: r.entity, id: r.entity_id, change_type: r.deleted ? 'delete' : 'upsert', project_id: r.project_id, kind: r.kind });
      }
      if (current) this.emitTx(current);
    }
  }

  private emitTx(event: TxEvent): void {
    this.lastTx = event.tx_id;
    try {
      this.emit('tx', event);
    } catch (err) {
      this.logger.error({ err }, 'change listener failed');
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.unlisten?.().catch(() => {});
    while (this.running) await this.running;
  }
}
