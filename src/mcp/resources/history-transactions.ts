import type { TransactionRow } from '../../services/resource-reads.js';
import { defineResource } from './define.js';
import { PAGING, readPaged } from './paging.js';

const URI = 'knowledge://history/transactions';

export const historyTransactions = defineResource({
  name: 'history-transactions',
  title: 'Transaction history',
  uri: URI,
  description: `The transaction log, newest first (tx_id, op, actor, rationale, created_at, reverted_by, changes). ${PAGING}`,
  version: 1,
  params: () => ({}),
  canonical: () => URI,
  read: (_params, ctx) =>
    readPaged(ctx, URI, {
      // A cursor's key is a tx_id; Number() keeps a tampered one from reaching SQL as text.
      fetch: (page) => ctx.services.resourceReads.transactions({ ...page, afterKey: page.afterKey === null ? null : Number(page.afterKey) }),
      keyOf: (tx: TransactionRow) => tx.tx_id,
      itemOf: (tx) => ({ ...tx, created_at: tx.created_at instanceof Date ? tx.created_at.toISOString() : tx.created_at }),
    }),
  covers: () => true,
});
