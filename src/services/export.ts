import { AppError } from '../errors.js';
import type { Db } from '../store/db.js';
import { imagesForExport, liveEdgesForExport, liveNodesForExport, transactionsForExport } from '../store/bulk-repo.js';
import { latestTxId } from '../store/tx-log.js';

/** The parts of an export, in the order a file holds them (nodes before the edges that join them). */
export const EXPORT_SECTIONS = ['memories', 'edges', 'transactions'] as const;
export type ExportSection = (typeof EXPORT_SECTIONS)[number];
export const MAX_EXPORT_PAGE = 1_000;

export type ExportLine = Record<string, unknown>;

export interface ExportPageQuery {
  /** The last key of the previous page (an id; a tx_id for transactions), null for the first. */
  after: string | null;
  limit: number;
  projectId: string | null;
  /** Read the state after this transaction from the log; null reads the live tables. */
  asOfTxId: number | null;
}

export interface ExportPage {
  lines: ExportLine[];
  /** The key to pass as `after` for the next page; null at the end. */
  next: string | null;
}

const iso = (v: unknown): string | null => (v instanceof Date ? v.toISOString() : typeof v === 'string' ? v : null);

/**
 * One memory line of the JSONL format, fields in a fixed order so that two exports of the same
 * memories are the same bytes. Database-assigned keys (nid) and derived ones (content_hash) are
 * left out: an import into another store assigns and derives them again.
 */
export function memoryLine(n: Record<string, unknown>): ExportLine {
  return {
    type: 'memory',
    id: n.id,
    kind: n.kind,
    project_id: n.project_id,
    collection: n.collection ?? 'default',
    memory_type: n.memory_type,
    topic: n.topic ?? null,
    content: n.content,
    tags: n.tags ?? [],
    source_uri: n.source_uri ?? null,
    importance: n.importance,
    confidence: n.confidence,
    metadata: n.metadata ?? {},
    valid_from: iso(n.valid_from),
    valid_to: iso(n.valid_to),
    created_at: iso(n.created_at),
    updated_at: iso(n.updated_at),
    version: n.version,
  };
}

export function edgeLine(e: Record<string, unknown>): ExportLine {
  return {
    type: 'edge',
    id: e.id,
    src: e.src,
    dst: e.dst,
    edge_type: e.edge_type,
    predicate: e.predicate,
    weight: e.weight,
    confidence: e.confidence,
    metadata: e.metadata ?? {},
    valid_from: iso(e.valid_from),
    valid_to: iso(e.valid_to),
    created_at: iso(e.created_at),
  };
}

/**
 * `context-graph export` (issue 18): keyset pages of memories (entities and chunks included),
 * edges and, for `--history`, the transaction log. A caller streams page after page, so memory
 * stays constant however large the store; pinning `asOfTxId` keeps every page on one snapshot
 * while writes go on.
 */
export class ExportService {
  constructor(private readonly db: Db) {}

  latestTxId(): Promise<number> {
    return latestTxId(this.db);
  }

  async page(section: ExportSection, q: ExportPageQuery): Promise<ExportPage> {
    if (!Number.isInteger(q.limit) || q.limit < 1 || q.limit > MAX_EXPORT_PAGE) {
      throw new AppError('INVALID_PARAMS', `limit must be 1..${MAX_EXPORT_PAGE}.`, { field: 'limit', minimum: 1, maximum: MAX_EXPORT_PAGE });
    }
    if (q.asOfTxId !== null) {
      const latest = await latestTxId(this.db);
      if (q.asOfTxId > latest)
        throw new AppError('INVALID_PARAMS', `as_of_tx_id ${q.asOfTxId} is after the latest transaction (${latest}).`, { field: 'as_of_tx_id', maximum: latest });
    }
    const opts = { afterId: q.after, limit: q.limit, projectId: q.projectId };
    let lines: ExportLine[];
    let lastKey: string | null;
    if (section === 'transactions') {
      const upTo = q.asOfTxId ?? (await latestTxId(this.db));
      const rows = await transactionsForExport(this.db, { afterTxId: Number(q.after ?? 0), asOfTxId: upTo, limit: q.limit });
      lines = rows.map((t) => ({
        type: 'transaction',
        tx_id: t.tx_id,
        op: t.op,
        actor: t.actor,
        rationale: t.rationale,
        reverted_by: t.reverted_by,
        created_at: iso(t.created_at),
        changes: t.changes,
      }));
      lastKey = rows.length ? String(rows[rows.length - 1]!.tx_id) : null;
    } else if (q.asOfTxId !== null) {
      const images = await imagesForExport(this.db, section === 'memories' ? 'node' : 'edge', q.asOfTxId, opts);
      lines = images.map(section === 'memories' ? memoryLine : edgeLine);
      lastKey = images.length ? String(images[images.length - 1]!.id) : null;
    } else {
      const rows = section === 'memories' ? await liveNodesForExport(this.db, opts) : await liveEdgesForExport(this.db, opts);
      lines = rows.map((r) => (section === 'memories' ? memoryLine : edgeLine)(r as unknown as Record<string, unknown>));
      lastKey = rows.length ? rows[rows.length - 1]!.id : null;
    }
    return { lines, next: lines.length === q.limit ? lastKey : null };
  }
}
