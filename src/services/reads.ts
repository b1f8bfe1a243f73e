import type { Db } from '../store/db.js';
import { distribution, neighbouringIds, nodeById, recentTopics, type NodeRecord } from '../store/nodes-repo.js';
import { imagesAsOf, latestTxId } from '../store/tx-log.js';

export type { NodeRecord };

/** Read helpers tools share; tools do no SQL themselves. */
export class ReadService {
  constructor(private readonly db: Db) {}

  latestTxId(): Promise<number> {
    return latestTxId(this.db);
  }

  /** A live entry, or its state after `asOfTxId` when given (null when absent then). */
  async entry(id: string, asOfTxId?: number): Promise<NodeRecord | null> {
    if (asOfTxId !== undefined) {
      const [img] = await imagesAsOf(this.db, 'node', asOfTxId, { ids: [id], limit: 1 });
      return img ? (img.image as unknown as NodeRecord) : null;
    }
    const node = await nodeById(this.db, id);
    return node && node.deleted_at === null ? node : null;
  }

  /**
   * Replaces nodes by their state after `asOfTxId`, dropping those absent then (not yet
   * created, deleted, or un-created by an undo). Order is kept.
   */
  async asOf<T extends { node: NodeRecord }>(items: readonly T[], asOfTxId: number): Promise<T[]> {
    if (items.length === 0) return [];
    const images = await imagesAsOf(this.db, 'node', asOfTxId, { ids: items.map((i) => i.node.id), limit: items.length });
    const byId = new Map(images.map((i) => [i.entity_id, i.image as unknown as NodeRecord]));
    return items.flatMap((i) => (byId.has(i.node.id) ? [{ ...i, node: byId.get(i.node.id)! }] : []));
  }

  neighbouringIds(id: string, n = 5): Promise<string[]> {
    return neighbouringIds(this.db, id, n);
  }

  recentTopics(n = 8): Promise<string[]> {
    return recentTopics(this.db, n);
  }

  distribution(nodes: readonly NodeRecord[]) {
    return distribution(nodes);
  }
}
