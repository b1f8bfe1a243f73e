import { AppError } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { restoreRetainedEmbeddings, retractEmbeddings } from '../store/embeddings-repo.js';
import {
  changesOfTxs,
  edgesByIdForUpdate,
  entityChangesSince,
  hardDeleteEdge,
  hardDeleteNode,
  nodesByIdForUpdate,
  restoreEdge,
  restoreNode,
  type TxChangeRow,
} from '../store/history-repo.js';
import type { NodeRecord } from '../store/nodes-repo.js';
import type { LoggedEntity } from '../store/tx-log.js';
import { revertCollection } from './collections.js';
import type { RevertedEntity } from './history.js';
import { changeTypeOf, sameImage, state, type Image } from './images.js';
import { revertSignal } from './signals/undo.js';
import { image } from './writes.js';

/** What a revert does to vectors, filled in for the caller to act on once it commits. */
export interface RevertVectors {
  /** Restored nodes to embed (new text, or nothing kept to put back). */
  toEmbed: NodeRecord[];
  /** Nodes the revert removed for good: their index keys go. */
  removedNids: number[];
  /** Restored nodes whose kept vectors are back in the feed (db/150): nothing to embed. */
  reused: number[];
  /** Active model id per space: kept vectors of another model are not put back. Empty: any. */
  activeModels: ReadonlyMap<string, string>;
}

/**
 * Restores every entity the `txIds` touched to its image before the oldest of them, logging
 * each as a change. Throws CONFLICT when a later transaction outside the set still holds a change.
 */
export async function revertTransactions(
  tx: Queryable,
  txIds: readonly number[],
  log: (c: { entity: LoggedEntity; entityId: string; before: unknown; after: unknown }) => void,
  vectors: RevertVectors,
): Promise<RevertedEntity[]> {
  const { toEmbed, removedNids, reused } = vectors;
  const set = new Set(txIds);
  const changes = await changesOfTxs(tx, txIds);
  // Entities in the order they were last touched, newest first: restores run in reverse order.
  const order: Array<{ entity: LoggedEntity; entityId: string }> = [];
  const seen = new Set<string>();
  for (const c of [...changes].reverse()) {
    if (!['node', 'edge', 'collection', 'signal'].includes(c.entity)) {
      throw new AppError('CONFLICT', `Transaction ${c.tx_id} changed a ${c.entity}, which undo cannot restore.`, { tx_id: c.tx_id, entity: c.entity });
    }
    const key = `${c.entity}\u0000${c.entity_id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    order.push({ entity: c.entity as LoggedEntity, entityId: c.entity_id });
  }

  // Lock the live rows first, so no writer changes them between the check and the restore.
  const nodeIds = order.filter((e) => e.entity === 'node').map((e) => e.entityId);
  const edgeIds = order.filter((e) => e.entity === 'edge').map((e) => e.entityId);
  const nodes = new Map((await nodesByIdForUpdate(tx, nodeIds)).map((n) => [n.id, n]));
  const edges = new Map((await edgesByIdForUpdate(tx, edgeIds)).map((e) => [e.id, e]));

  const minTx = Math.min(...txIds);
  const history = await entityChangesSince(tx, order, minTx);
  const byEntity = new Map<string, TxChangeRow[]>();
  for (const c of history) {
    const key = `${c.entity}\u0000${c.entity_id}`;
    const list = byEntity.get(key) ?? [];
    list.push(c);
    byEntity.set(key, list);
  }

  // Check everything before changing anything (all or nothing).
  const targets: Array<{ entity: LoggedEntity; entityId: string; target: Image | null }> = [];
  for (const e of order) {
    const chain = byEntity.get(`${e.entity}\u0000${e.entityId}`) ?? [];
    const last = chain[chain.length - 1];
    let expected: Image | null = last ? last.after : null;
    const inSet = [...new Set(chain.filter((c) => set.has(c.tx_id)).map((c) => c.tx_id))].sort((a, b) => b - a);
    for (const x of inSet) {
      const ofX = chain.filter((c) => c.tx_id === x);
      const afterX = ofX[ofX.length - 1]!.after;
      if (!sameImage(expected, afterX)) {
        const later = chain.filter((c) => c.tx_id > x && !set.has(c.tx_id)).map((c) => c.tx_id);
        const culprit = later.length ? Math.max(...later) : null;
        throw new AppError(
          'CONFLICT',
          `Cannot revert transaction ${x}: ${e.entity} ${e.entityId} was changed later by transaction ${culprit ?? '(unknown)'}, which is not being reverted. Revert that one first or include it.`,
          { tx_id: x, entity: e.entity, entity_id: e.entityId, conflicting_tx_id: culprit },
        );
      }
      expected = ofX[0]!.before;
    }
    targets.push({ ...e, target: expected });
  }

  const out: RevertedEntity[] = [];
  const retract: number[] = [];
  // Tombstoned nodes coming back with the text they were deleted with: their kept vectors fit.
  const revived: NodeRecord[] = [];
  const dropKept: number[] = [];
  for (const t of targets) {
    if (t.entity === 'node') {
      const current = nodes.get(t.entityId) ?? null;
      const before = current ? (image(current) as unknown as Image) : null;
      let after: Image | null = null;
      if (t.target === null) {
        if (current) {
          if (current.deleted_at === null) removedNids.push(current.nid);
          await hardDeleteNode(tx, t.entityId);
        }
      } else {
        const restored = await restoreNode(tx, t.target, current !== null);
        after = image(restored) as unknown as Image;
        const wasLive = current !== null && current.deleted_at === null;
        const isLive = restored.deleted_at === null;
        if (wasLive && !isLive) retract.push(restored.nid);
        const sameText = current !== null && current.content === restored.content && current.topic === restored.topic;
        if (isLive && current !== null && !wasLive && sameText) revived.push(restored);
        else if (isLive && (!wasLive || !sameText)) {
          toEmbed.push(restored);
          if (current !== null && !wasLive) dropKept.push(restored.nid);
        }
      }
      if (before === null && after === null) continue;
      log({ entity: 'node', entityId: t.entityId, before, after });
      out.push({ entity: 'node', entity_id: t.entityId, change_type: changeTypeOf(state(before), state(after)) });
    } else if (t.entity === 'collection' || t.entity === 'signal') {
      const { before, after } = await (t.entity === 'collection' ? revertCollection : revertSignal)(tx, t.entityId, t.target);
      if (before === null && after === null) continue;
      log({ entity: t.entity, entityId: t.entityId, before, after });
      out.push({ entity: t.entity, entity_id: t.entityId, change_type: changeTypeOf(state(before), state(after)) });
    } else {
      const current = edges.get(t.entityId) ?? null;
      const before = current ? (image(current) as unknown as Image) : null;
      let after: Image | null = null;
      if (t.target === null) {
        if (current) await hardDeleteEdge(tx, t.entityId);
      } else {
        after = image(await restoreEdge(tx, t.target)) as unknown as Image;
      }
      if (before === null && after === null) continue;
      log({ entity: 'edge', entityId: t.entityId, before, after });
      out.push({ entity: 'edge', entity_id: t.entityId, change_type: changeTypeOf(state(before), state(after)) });
    }
  }
  await retractEmbeddings(tx, retract);
  const back = new Set(
    await restoreRetainedEmbeddings(
      tx,
      revived.map((n) => n.nid),
      dropKept,
      vectors.activeModels,
    ),
  );
  for (const n of revived) {
    if (back.has(n.nid)) reused.push(n.nid);
    else toEmbed.push(n);
  }
  return out;
}
