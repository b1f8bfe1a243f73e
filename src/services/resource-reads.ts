import type { Db } from '../store/db.js';
import {
  entryIdsWithPrefix,
  nodeImagesAsOf,
  projectIdsWithPrefix,
  projectsAsOf,
  projectTagsAsOf,
  transactionsPage,
  type ProjectRow,
  type TagRow,
  type TransactionRow,
} from '../store/resource-repo.js';
import { imagesAsOf } from '../store/tx-log.js';
import type { NodeRecord } from './reads.js';

export type { ProjectRow, TagRow, TransactionRow };

/** One page of reads "as of" a transaction, keyset after `afterKey` (exclusive). */
export interface AsOfPage<K> {
  asOfTxId: number;
  afterKey: K | null;
  limit: number;
}

/** An edge as the transaction log keeps it (its row's JSON image). */
export type EdgeImage = Record<string, unknown> & { id: string };

/**
 * What the resources read: live state as of a transaction, rebuilt from the transaction log and
 * keyset-paged, so a cursor keeps its snapshot while writes happen between pages. Completions
 * (ids and project names by prefix) read the live tables.
 */
export class ResourceReadService {
  constructor(private readonly db: Db) {}

  /** Live entries (graph entities excluded), by id; the topic matches whole, in any case. */
  async entries(page: AsOfPage<string>, filter: { projectId: string | null; topic: string | null }): Promise<NodeRecord[]> {
    const rows = await nodeImagesAsOf(this.db, page.asOfTxId, { afterId: page.afterKey, limit: page.limit, ...filter });
    return rows.map((r) => r.image as unknown as NodeRecord);
  }

  /** Live edges, by id. */
  async edges(page: AsOfPage<string>): Promise<EdgeImage[]> {
    const rows = await imagesAsOf(this.db, 'edge', page.asOfTxId, { afterId: page.afterKey, limit: page.limit });
    return rows.map((r) => ({ ...r.image, id: r.entity_id }));
  }

  /** Transactions, newest first: `afterKey` is the last tx_id read, the page holds older ones. */
  transactions(page: AsOfPage<number>): Promise<TransactionRow[]> {
    return transactionsPage(this.db, page.asOfTxId, { beforeTxId: page.afterKey, limit: page.limit });
  }

  projects(page: AsOfPage<string>): Promise<ProjectRow[]> {
    return projectsAsOf(this.db, page.asOfTxId, { afterId: page.afterKey, limit: page.limit });
  }

  projectTags(projectId: string, page: AsOfPage<string>): Promise<TagRow[]> {
    return projectTagsAsOf(this.db, page.asOfTxId, projectId, { afterId: page.afterKey, limit: page.limit });
  }

  entryIdsWithPrefix(prefix: string, limit: number): Promise<string[]> {
    return entryIdsWithPrefix(this.db, prefix, limit);
  }

  projectIdsWithPrefix(prefix: string, limit: number): Promise<string[]> {
    return projectIdsWithPrefix(this.db, prefix, limit);
  }
}
