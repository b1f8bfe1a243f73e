import type { Db } from '../store/db.js';
import { nodeChanges } from '../store/curation-repo.js';
import { decodeImage } from '../store/history-repo.js';
import { state } from './images.js';

export type LineageEvent = 'created' | 'merged_in' | 'modified' | 'deleted' | 'merged_out' | 'restored' | 'purged';

export interface LineageEntry {
  tx_id: number;
  op: string;
  event: LineageEvent;
  actor: string | null;
  rationale: string | null;
  at: Date;
  /** The transaction that reverted this one (undo or restore_from_hash), if any. */
  reverted_by: number | null;
  /** Columns whose value changed (modifications only). */
  changed_fields: string[];
  /** Merges: the sources a merged node was made from, or the node a source was merged into. */
  merged_from: string[];
  merged_into: string | null;
  reversal_hash: string | null;
}

export interface Lineage {
  id: string;
  state: 'live' | 'deleted' | 'absent';
  entries: LineageEntry[];
  truncated: boolean;
}

/** Columns every write bumps; they say nothing about what changed. */
const BOOKKEEPING = new Set(['nid', 'version', 'updated_at']);

function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => !BOOKKEEPING.has(k) && JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * A node's lineage from the transaction log: creation, every modification, merges in and out,
 * deletes and restores, each with its transaction, actor and rationale. Works for deleted and
 * purged nodes too, since the log keeps their images.
 */
export class LineageService {
  constructor(private readonly deps: { db: Db }) {}

  async of(id: string, limit = 500): Promise<Lineage | null> {
    const rows = await nodeChanges(this.deps.db, id, limit + 1);
    if (rows.length === 0) return null;
    const entries: LineageEntry[] = rows.slice(0, limit).map((r) => {
      const before = decodeImage(r.before);
      const after = decodeImage(r.after);
      const from = state(before);
      const to = state(after);
      const meta = ((after ?? before)?.metadata ?? {}) as Record<string, unknown>;
      let event: LineageEvent;
      if (from === 'absent') event = r.op === 'merge' ? 'merged_in' : 'created';
      else if (to === 'absent') event = 'purged';
      else if (from === 'live' && to === 'deleted') event = r.op === 'merge' ? 'merged_out' : 'deleted';
      else if (from === 'deleted' && to === 'live') event = 'restored';
      else event = 'modified';
      return {
        tx_id: Number(r.tx_id),
        op: r.op,
        event,
        actor: r.actor,
        rationale: r.rationale,
        at: r.created_at,
        reverted_by: r.reverted_by === null ? null : Number(r.reverted_by),
        changed_fields: event === 'modified' && before && after ? changedFields(before, after) : [],
        merged_from: event === 'merged_in' ? strings(meta.merged_from) : [],
        merged_into: event === 'merged_out' && typeof meta.merged_into === 'string' ? meta.merged_into : null,
        reversal_hash: r.reversal_hash,
      };
    });
    const last = decodeImage(rows[Math.min(rows.length, limit) - 1]!.after);
    return { id, state: state(last), entries, truncated: rows.length > limit };
  }
}
